// Each node's camera credentials Secret (vigil-camera-credentials-<node>): the user name and password of the cameras
// that node records or is about to, so that a recorder can read only what it records. One writer for all of them, one
// write pass at a time: the `cameracredentials` controller keeps them level with the Camera statuses, and the
// assignment pass, before it writes a status that gives a node a camera, adds the camera to that node's Secret and holds
// it there until the status is written. Also deletes the Secret all recorders shared before, once no older recorder runs.
import { CAMERA_CREDENTIALS_SECRET, Labels, nodeNameOf, type Camera, type RecorderNode } from '@vigil/crds';
import { isNotFound, keyOf, Resources, type Secret, forEachLimited, SerialSection } from '@vigil/kube';
import { credentialsByNode, desiredNodeCredentialsSecret, reservedSecrets, type ReservedSecrets } from '../desired/camera-credentials.js';
import { MANAGED_BY, NODE_ANNOTATION, recorderName } from '../desired/names.js';
import { isOwnedBy, ownerOf } from '../desired/owner.js';
import { templateHashOf } from '../desired/pod.js';
import type { ReconcileResult } from '../runtime/controller.js';
import { credentialSecretOf } from './camera-checks.js';
import { createCached, nsKey, type ControllerContext } from './context.js';
import type { PodTemplates } from './pod-templates.js';

export const CREDENTIALS_KEY = 'credentials';

/** Secret writes in flight at once. */
const WRITE_CONCURRENCY = 4;
/** How often the removal of the shared Secret looks again while older recorder Pods still run. */
const RETIRE_RETRY_MS = 5000;

/** Camera key → the nodes a status about to be written gives it. */
export type PlannedRecorders = ReadonlyMap<string, readonly string[]>;

interface WriteFailure {
  node: string;
  err: unknown;
}

function sameData(a: Record<string, string> | undefined, b: Record<string, string>): boolean {
  const keys = Object.keys(b);
  return Object.keys(a ?? {}).length === keys.length && keys.every((k) => a?.[k] === b[k]);
}

export class NodeCredentials {
  readonly #reserved: ReservedSecrets;
  readonly #holds = new Set<PlannedRecorders>();
  /** One write pass at a time (the assignment's and the controller's), so each computes from the other's result. */
  readonly #writePasses = new SerialSection();

  /** `requestSync` queues a `sync` (after a hold is released: what a move took away from the node it left). */
  constructor(
    private readonly ctx: ControllerContext,
    private readonly templates: PodTemplates,
    private readonly requestSync: () => void,
  ) {
    this.#reserved = reservedSecrets(ctx.settings);
  }

  /** Writes every node's Secret as the Camera statuses (and the moves being written) say; the controller's pass. */
  sync(signal: AbortSignal): Promise<ReconcileResult | void> {
    return this.#writePasses.run(async () => {
      const failures = await this.#writeAll(signal);
      if (failures[0] !== undefined) throw failures[0].err;
      if (!(await this.#retireShared(signal))) return { requeueAfterMs: RETIRE_RETRY_MS };
      return undefined;
    });
  }

  /**
   * For an assignment pass: first each camera's credentials go to the nodes `planned` gives it, then `write` writes the
   * statuses, told which nodes' Secrets could not be written (their new cameras must wait); the credentials stay held
   * on those nodes until `write` is done, whatever another pass computes from the statuses meanwhile.
   */
  async whileAssigning<T>(planned: PlannedRecorders, signal: AbortSignal, write: (unwritten: ReadonlySet<string>) => Promise<T>): Promise<T> {
    if (planned.size === 0) return write(new Set());
    this.#holds.add(planned);
    try {
      // Only the Secrets of the nodes the moves give cameras must be written before the statuses: the others follow in
      // the controller's pass (requestSync below), not in every assignment pass.
      const nodes = new Set([...planned.values()].flat());
      const failures = await this.#writePasses.run(() => this.#writeAll(signal, nodes));
      for (const f of failures) this.ctx.log.warn({ node: f.node, err: (f.err as Error).message }, 'cannot write the node\'s camera credentials Secret; its new cameras wait');
      return await write(new Set(failures.map((f) => f.node)));
    } finally {
      this.#holds.delete(planned);
      this.requestSync();
    }
  }

  #heldFor(camera: Camera): string[] {
    const key = keyOf(camera);
    return [...this.#holds].flatMap((h) => h.get(key) ?? []);
  }

  /** Writes the Secret of every RecorderNode, or of those named in `only`. */
  async #writeAll(signal: AbortSignal, only?: ReadonlySet<string>): Promise<WriteFailure[]> {
    const { ctx } = this;
    const rns = ctx.caches.recorderNodes.list().filter((rn) => !rn.metadata.deletionTimestamp && (only === undefined || only.has(rn.metadata.name ?? '')));
    const cameras = ctx.caches.cameras.list();
    const byNode = credentialsByNode(cameras, rns.map((rn) => rn.metadata.name ?? ''), credentialSecretOf(ctx), this.#reserved, (cam) => this.#heldFor(cam));
    const failures: WriteFailure[] = [];
    await forEachLimited(rns, WRITE_CONCURRENCY, async (rn) => {
      if (signal.aborted) return;
      try {
        await this.#writeOne(rn, byNode.get(rn.metadata.name ?? '') ?? {}, signal);
      } catch (err) {
        failures.push({ node: rn.metadata.name ?? '', err });
      }
    });
    return failures;
  }

  async #writeOne(rn: RecorderNode, data: Record<string, string>, signal: AbortSignal): Promise<void> {
    const { ctx } = this;
    const want = desiredNodeCredentialsSecret(rn, data, ctx.namespace);
    const name = want.metadata.name ?? '';
    const cameras = Object.keys(data).length / 2;
    let have = ctx.caches.secrets.get(nsKey(ctx, name));
    if (!have) {
      if (await createCached(ctx, Resources.secrets, ctx.caches.secrets, want, signal)) {
        ctx.log.info({ node: rn.metadata.name, cameras }, 'camera credentials Secret of the node created');
        return;
      }
      // There already (not yet in the cache, or of a type the cache does not hold): read it and put it right.
      have = await ctx.client.get<Secret>(Resources.secrets, ctx.namespace, name, { signal });
      if (!have) throw new Error(`Secret ${name} exists but could not be read; trying again`);
    }
    const labelsKept = Object.entries(want.metadata.labels ?? {}).every(([k, v]) => have.metadata.labels?.[k] === v);
    if (sameData(have.data, data) && labelsKept && have.metadata.annotations?.[NODE_ANNOTATION] === rn.metadata.name && isOwnedBy(have, ownerOf(rn))) return;
    const metadata = {
      ...have.metadata,
      labels: { ...have.metadata.labels, ...want.metadata.labels },
      annotations: { ...have.metadata.annotations, ...want.metadata.annotations },
      ownerReferences: want.metadata.ownerReferences,
    };
    const next: Secret = { ...have, metadata, type: want.type, data };
    ctx.caches.secrets.upsert(await ctx.client.replace(Resources.secrets, next, { signal }));
    ctx.log.info({ node: rn.metadata.name, cameras }, 'camera credentials Secret of the node updated');
  }

  /**
   * Deletes the Secret every recorder read before each node had its own, once every recorder Pod runs the current
   * template (an older recorder still reads it: taking it away would stop its cameras). False while it must wait.
   */
  async #retireShared(signal: AbortSignal): Promise<boolean> {
    const { ctx } = this;
    const shared = ctx.caches.secrets.get(nsKey(ctx, CAMERA_CREDENTIALS_SECRET));
    if (!shared || shared.metadata.deletionTimestamp || shared.metadata.labels?.[Labels.managedBy] !== MANAGED_BY) return true;
    const older = ctx.caches.recorderNodes.list().filter((rn) => {
      const pod = ctx.caches.pods.get(nsKey(ctx, recorderName(nodeNameOf(rn))));
      return pod !== undefined && (pod.metadata.deletionTimestamp !== undefined || templateHashOf(pod) !== this.templates.hashFor(rn));
    });
    if (older.length > 0) return false;
    try {
      await ctx.client.delete(Resources.secrets, ctx.namespace, CAMERA_CREDENTIALS_SECRET, { signal, uid: shared.metadata.uid });
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    ctx.log.info({ secret: CAMERA_CREDENTIALS_SECRET }, 'the camera credentials Secret all recorders shared is deleted: each node has its own');
    return true;
  }
}

export function reconcileCameraCredentialsFor(credentials: NodeCredentials) {
  return (_key: string, signal: AbortSignal): Promise<ReconcileResult | void> => credentials.sync(signal);
}
