// One recorder Pod, one Service and (with a host template) one Ingress per RecorderNode, each owned by the release's
// recorder ConfigMap (helm uninstall removes them without an operator); a Pod the API refuses is reported on the
// RecorderNode and retried with backoff; a changed Pod template is rolled one node at a time, in name order: the next
// Pod is replaced only when every rolled Pod is Ready and its node online.
import { nodeLeaseName, nodeNameOf, type OwnerReference, type RecorderNode } from '@vigil/crds';
import { isDerivedFrom, isForbidden, isInvalid, isNotFound, Resources, type ApiError, type Ingress, type Service, isOnline, SerialSection } from '@vigil/kube';
import { NODE_ANNOTATION, RECORDER_LABEL, recorderName } from '../desired/names.js';
import { isOwnedBy } from '../desired/owner.js';
import { isPodReady, templateHashOf } from '../desired/pod.js';
import { desiredIngress, desiredService } from '../desired/service.js';
import type { ReconcileResult } from '../runtime/controller.js';
import { createCached, nsKey, type ControllerContext } from './context.js';
import { reportPodCreated } from './pod-created-condition.js';
import type { PodTemplates } from './pod-templates.js';
import { identityComplete } from './recorder-identity.js';
import { adopt, namespacedOwner } from './release-owner.js';

const WAIT_MS = 1000;

/**
 * The nodes whose changed template waits for the rolling gate: a Pod becoming Ready or a node coming online may let
 * one of them go on, so those events wake them (and only them: at 200 nodes, waking every node on every Pod event made
 * the cold start quadratic).
 */
export class RollWaiters {
  readonly #nodes = new Set<string>();

  add(node: string): void {
    this.#nodes.add(node);
  }

  delete(node: string): void {
    this.#nodes.delete(node);
  }

  list(): string[] {
    return [...this.#nodes];
  }
}

/** Why node `name` may not be rolled now (another node's roll is unfinished, or one before it by name has not rolled), or undefined when it may. */
export function rollBlocker(ctx: ControllerContext, templates: PodTemplates, name: string): string | undefined {
  const now = ctx.clock.now();
  for (const other of ctx.caches.recorderNodes.list()) {
    const otherName = other.metadata.name ?? '';
    if (otherName === name || other.metadata.deletionTimestamp) continue;
    const pod = ctx.caches.pods.get(nsKey(ctx, recorderName(nodeNameOf(other))));
    if (!pod || pod.metadata.deletionTimestamp) return `the Pod of ${otherName} is being replaced`;
    if (templateHashOf(pod) !== templates.hashFor(other)) {
      // Not rolled yet: nodes roll in name order, whichever worker gets here first.
      if (otherName < name) return `${otherName} rolls first`;
      continue;
    }
    if (!isPodReady(pod)) return `the new Pod of ${otherName} is not Ready yet`;
    if (!isOnline(ctx.caches.leases.get(nsKey(ctx, nodeLeaseName(otherName))), now, ctx.nodeSilenceMs)) return `${otherName} is not online yet`;
  }
  return undefined;
}

/** What the operator keeps of a per-node object's metadata (other annotations and owners are the user's). */
function ownMetadata(obj: Service | Ingress, owner: OwnerReference): unknown {
  return { labels: obj.metadata.labels, node: obj.metadata.annotations?.[NODE_ANNOTATION], owned: isOwnedBy(obj, owner) };
}

async function ensureService(ctx: ControllerContext, rn: RecorderNode, owner: OwnerReference, signal: AbortSignal): Promise<void> {
  const want = desiredService(rn, ctx.settings, ctx.namespace, owner);
  const have = ctx.caches.services.get(nsKey(ctx, want.metadata.name ?? ''));
  if (!have) {
    await createCached(ctx, Resources.services, ctx.caches.services, want, signal);
    return;
  }
  // As the server returns it (its defaults and key order): only what the operator sets is compared.
  if (isDerivedFrom({ selector: want.spec?.selector, ports: want.spec?.ports, meta: ownMetadata(want, owner) }, { selector: have.spec?.selector, ports: have.spec?.ports, meta: ownMetadata(have, owner) })) return;
  const metadata = { ...have.metadata, labels: want.metadata.labels, annotations: { ...have.metadata.annotations, ...want.metadata.annotations }, ownerReferences: want.metadata.ownerReferences };
  const next: Service = { ...have, metadata, spec: { ...have.spec, selector: want.spec?.selector, ports: want.spec?.ports } };
  ctx.caches.services.upsert(await ctx.client.replace(Resources.services, next, { signal }));
}

async function ensureIngress(ctx: ControllerContext, rn: RecorderNode, owner: OwnerReference, signal: AbortSignal): Promise<void> {
  const want = desiredIngress(rn, ctx.settings, ctx.namespace, owner);
  const name = recorderName(nodeNameOf(rn));
  const have = ctx.caches.ingresses.get(nsKey(ctx, name));
  if (!want) {
    if (have && have.metadata.labels?.[RECORDER_LABEL] === name) await ctx.client.delete(Resources.ingresses, ctx.namespace, name, { signal, uid: have.metadata.uid });
    return;
  }
  if (!have) {
    await createCached(ctx, Resources.ingresses, ctx.caches.ingresses, want, signal);
    return;
  }
  if (isDerivedFrom({ spec: want.spec, meta: ownMetadata(want, owner) }, { spec: have.spec, meta: ownMetadata(have, owner) })) return;
  const metadata = { ...have.metadata, labels: want.metadata.labels, annotations: { ...have.metadata.annotations, ...want.metadata.annotations }, ownerReferences: want.metadata.ownerReferences };
  ctx.caches.ingresses.upsert(await ctx.client.replace(Resources.ingresses, { ...have, metadata, spec: want.spec }, { signal }));
}

/** Creates the node's Pod; a refusal by the API (Pod Security, validation) is reported on the RecorderNode, then thrown for the backoff. */
async function createPod(ctx: ControllerContext, rn: RecorderNode, templates: PodTemplates, owner: OwnerReference, signal: AbortSignal): Promise<ReconcileResult | void> {
  const want = templates.podFor(rn, owner);
  const podName = want.metadata.name ?? '';
  try {
    if (!(await createCached(ctx, Resources.pods, ctx.caches.pods, want, signal))) return { requeueAfterMs: WAIT_MS };
  } catch (err) {
    if (isForbidden(err) || isInvalid(err)) {
      const reason = isForbidden(err) ? 'PodForbidden' : 'PodInvalid';
      await reportPodCreated(ctx, rn, { status: 'False', reason, message: `cannot create Pod ${podName}: ${(err as ApiError).apiMessage}` }, signal);
    }
    throw err;
  }
  ctx.log.info({ node: rn.metadata.name, pod: podName, hash: templateHashOf(want) }, 'recorder Pod created');
  await reportPodCreated(ctx, rn, { status: 'True', reason: 'PodCreated', message: `Pod ${podName} exists` }, signal);
}

/** The RecorderNode is gone: remove what was made for it (owner references do the same where garbage collection runs). */
async function cleanUp(ctx: ControllerContext, name: string, signal: AbortSignal): Promise<void> {
  const objName = recorderName(name);
  for (const [type, cache] of [[Resources.pods, ctx.caches.pods], [Resources.services, ctx.caches.services], [Resources.ingresses, ctx.caches.ingresses]] as const) {
    const obj = cache.get(nsKey(ctx, objName));
    if (obj && obj.metadata.labels?.[RECORDER_LABEL] === objName && !obj.metadata.deletionTimestamp) {
      await ctx.client.delete(type, ctx.namespace, objName, { signal, uid: obj.metadata.uid });
    }
  }
}

export function reconcileRecorderPodsFor(ctx: ControllerContext, templates: PodTemplates, waiters: RollWaiters) {
  const rolling = new SerialSection();
  return async (name: string, signal: AbortSignal): Promise<ReconcileResult | void> => {
    const rn = ctx.caches.recorderNodes.get(name);
    if (!rn || rn.metadata.deletionTimestamp) {
      waiters.delete(name);
      return cleanUp(ctx, name, signal);
    }
    const owner = namespacedOwner(ctx);
    if (!owner) {
      // Nothing is made without it: the Pod could not start, and nothing would remove what was made after an uninstall.
      const cm = ctx.settings.recorder.configMap;
      await reportPodCreated(ctx, rn, { status: 'False', reason: 'ConfigMapMissing', message: `the recorder ConfigMap ${cm} does not exist in namespace ${ctx.namespace}` }, signal);
      return { requeueAfterMs: 5 * WAIT_MS };
    }
    await ensureService(ctx, rn, owner, signal);
    await ensureIngress(ctx, rn, owner, signal);
    const podName = recorderName(nodeNameOf(rn));
    const have = ctx.caches.pods.get(nsKey(ctx, podName));
    // The API server refuses a Pod whose ServiceAccount does not exist, and its recorder needs its Role and bindings
    // from its first request: the Pod waits for the whole identity (recorder-identity.ts makes it).
    if (!have && !identityComplete(ctx, rn)) return { requeueAfterMs: WAIT_MS };
    if (!have) return createPod(ctx, rn, templates, owner, signal);
    if (have.metadata.deletionTimestamp) return { requeueAfterMs: WAIT_MS };
    await reportPodCreated(ctx, rn, { status: 'True', reason: 'PodCreated', message: `Pod ${podName} exists` }, signal);
    // A Pod made by an older operator (owned by its RecorderNode) is handed to the release without being replaced.
    if (!isOwnedBy(have, owner)) {
      const adopted = await adopt(ctx, Resources.pods, have, owner, signal);
      if (adopted) ctx.caches.pods.upsert(adopted as typeof have);
    }
    const wantHash = templates.hashFor(rn);
    if (templateHashOf(have) === wantHash) {
      waiters.delete(name);
      return;
    }
    // The gate decides for the whole cluster: two workers never decide two nodes' rolls at once.
    return rolling.run(() => roll(ctx, templates, waiters, rn, podName, wantHash, signal));
  };
}

/** Replaces the node's Pod if the rolling gate lets it (called one node at a time). */
async function roll(ctx: ControllerContext, templates: PodTemplates, waiters: RollWaiters, rn: RecorderNode, podName: string, wantHash: string | undefined, signal: AbortSignal): Promise<ReconcileResult> {
  const name = rn.metadata.name ?? '';
  const have = ctx.caches.pods.get(nsKey(ctx, podName));
  if (!have || have.metadata.deletionTimestamp || templateHashOf(have) === wantHash) return { requeueAfterMs: WAIT_MS };
  const blocker = rollBlocker(ctx, templates, name);
  if (blocker) {
    ctx.log.debug({ node: name, blocker }, 'template change waits');
    waiters.add(name);
    return { requeueAfterMs: 2 * WAIT_MS };
  }
  waiters.delete(name);
  ctx.events.normal(rn, 'Rolling', `replacing Pod ${podName}: template ${templateHashOf(have) ?? '(none)'} → ${wantHash}`);
  try {
    await ctx.client.delete(Resources.pods, ctx.namespace, podName, { signal, uid: have.metadata.uid });
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
  // Mark it gone from the rolling gate's view until the watch says what happened.
  ctx.caches.pods.upsert({ ...have, metadata: { ...have.metadata, deletionTimestamp: new Date(ctx.clock.now()).toISOString() } });
  return { requeueAfterMs: WAIT_MS };
}
