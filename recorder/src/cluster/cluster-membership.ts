// The spec's membership endpoints on Kubernetes: leave, remove-node, add-learner, change-membership (the API server decides; the operator acts).
import type { Logger } from 'pino';
import { LEFT_ANNOTATION, RECORDER_NODE_KIND, API_VERSION, type RecorderNode } from '@vigil/crds';
import { ApiError, Resources, toApiTime, type KubeClient, type KubeObject } from '@vigil/kube';
import type { Clock } from '../util/clock.js';
import type { AssignmentCache } from './assignment-cache.js';
import type { ClusterCameraSource } from './cluster-camera-source.js';
import { ClusterRequestError } from './cluster-errors.js';
import type { ClusterView } from './cluster-view.js';
import type { Heartbeat } from './heartbeat.js';

export interface LeaveResult {
  node_name: string;
  /** Cameras another node took over before this one stopped them. */
  handed_over: number;
  /** Cameras this node stopped without a new node recording them (the handover timed out, or force without the API). */
  stopped_without_handover: number;
}

export interface ClusterMembershipOptions {
  client: KubeClient;
  view: ClusterView;
  nodeName: string;
  heartbeat: Heartbeat;
  source: ClusterCameraSource;
  cache: AssignmentCache;
  clock: Clock;
  log: Logger;
  /** How long leave waits for the operator to move this node's cameras (make-before-break). */
  handoverTimeoutMs?: number;
}

type RecorderNodeObject = RecorderNode & KubeObject;

function unreachable(err: unknown): ClusterRequestError {
  return new ClusterRequestError('cluster_unreachable', `the Kubernetes API cannot be reached: ${(err as Error).message}`);
}

export class ClusterMembership {
  readonly #opts: ClusterMembershipOptions;
  /** A forced leave the API did not hear of: member false and `vigil.io/left` are written once it answers again. */
  #unfinishedLeave = false;

  constructor(opts: ClusterMembershipOptions) {
    this.#opts = opts;
  }

  /**
   * This node leaves: member false and `vigil.io/left`, so the operator moves its cameras make-before-break;
   * once they record elsewhere (or after the timeout) it stops recording, deletes its heartbeat Lease and erases
   * cluster.dataDir/node_<name>. With `force` the local part happens even when the API cannot be reached.
   */
  async leave(force: boolean): Promise<LeaveResult> {
    const { nodeName, heartbeat, source, cache, log } = this.#opts;
    let apiReached = true;
    try {
      await this.#patch(nodeName, { metadata: { annotations: { [LEFT_ANNOTATION]: toApiTime(this.#opts.clock.now()) } }, spec: { member: false } });
    } catch (err) {
      if (!force || (err instanceof ClusterRequestError && err.kind === 'node_not_found')) throw err;
      apiReached = false;
      this.#unfinishedLeave = true;
      log.warn({ err: (err as Error).message }, 'leave with force: the Kubernetes API cannot be reached; stopping this node\'s cameras anyway');
    }
    // Counted from the assignment, not from what is published: a camera whose move just finished may still be
    // stopping here, and it was handed over, not left behind.
    const before = apiReached ? this.#assignedHere() : source.cameras.length;
    const left = apiReached ? await this.#waitForHandover() : before;
    source.recordNothing();
    heartbeat.pause();
    await heartbeat.deleteLease().catch((err: unknown) => log.warn({ err: (err as Error).message }, 'cannot delete the heartbeat Lease; it expires on its own'));
    await cache.erase();
    log.info({ handed_over: before - left, stopped_without_handover: left }, 'this node left the cluster: cameras stopped, heartbeat deleted, cluster state erased');
    return { node_name: nodeName, handed_over: before - left, stopped_without_handover: left };
  }

  get unfinishedLeave(): boolean {
    return this.#unfinishedLeave;
  }

  /** Writes what a forced leave could not (member false, `vigil.io/left`), so the node stays out once the API answers. */
  async finishLeave(): Promise<void> {
    if (!this.#unfinishedLeave) return;
    const { nodeName, clock, log } = this.#opts;
    try {
      await this.#patch(nodeName, { metadata: { annotations: { [LEFT_ANNOTATION]: toApiTime(clock.now()) } }, spec: { member: false } });
      this.#unfinishedLeave = false;
      log.info('the Kubernetes API answers again: this node\'s forced leave is now recorded on its RecorderNode');
    } catch (err) {
      if (err instanceof ClusterRequestError && err.kind === 'node_not_found') this.#unfinishedLeave = false;
    }
  }

  /** The node leaves membership (its vote stops counting); the operator moves its cameras (at once when it is silent). */
  async removeNode(name: string): Promise<void> {
    await this.#patch(name, { spec: { member: false } });
    this.#opts.log.info({ node: name }, 'node removed from membership');
  }

  /** A RecorderNode that watches and reports but takes no cameras and does not vote; created when absent. */
  async addLearner(name: string, url: string | undefined): Promise<void> {
    const { client, view, log } = this.#opts;
    let rn = view.recorderNode(name) ?? (await this.#get(name));
    try {
      if (rn === undefined) {
        rn = await client.create<RecorderNodeObject>(Resources.recorderNodes, { apiVersion: API_VERSION, kind: RECORDER_NODE_KIND, metadata: { name }, spec: { nodeName: name, member: false } });
      } else {
        rn = await this.#patch(name, { metadata: { annotations: { [LEFT_ANNOTATION]: null } }, spec: { member: false } });
      }
      if (url !== undefined && !rn.status?.url) await client.replaceStatus(Resources.recorderNodes, { ...rn, status: { ...rn.status, url } });
    } catch (err) {
      if (err instanceof ClusterRequestError) throw err;
      throw unreachable(err);
    }
    log.info({ node: name }, 'node added as a learner');
  }

  /** `members` vote and take cameras; every other RecorderNode becomes a learner. Unknown names change nothing. */
  async changeMembership(members: readonly string[]): Promise<void> {
    const { view, log } = this.#opts;
    if (members.length === 0) throw new ClusterRequestError('invalid_membership', 'members must name at least one node');
    const nodes = view.recorderNodes.list();
    const unknown = members.filter((m) => !nodes.some((rn) => rn.metadata.name === m));
    if (unknown.length > 0) throw new ClusterRequestError('node_not_found', `no RecorderNode ${unknown.map((u) => JSON.stringify(u)).join(', ')}`);
    for (const rn of nodes) {
      const name = rn.metadata.name ?? '';
      const member = members.includes(name);
      const left = rn.metadata.annotations?.[LEFT_ANNOTATION] !== undefined;
      if ((rn.spec.member !== false) === member && !(member && left)) continue;
      await this.#patch(name, { ...(member ? { metadata: { annotations: { [LEFT_ANNOTATION]: null } } } : {}), spec: { member } });
    }
    log.info({ members }, 'membership changed');
  }

  async #get(name: string): Promise<RecorderNodeObject | undefined> {
    try {
      return await this.#opts.client.get<RecorderNodeObject>(Resources.recorderNodes, undefined, name, { timeoutMs: 5000 });
    } catch (err) {
      throw unreachable(err);
    }
  }

  async #patch(name: string, patch: unknown): Promise<RecorderNodeObject> {
    try {
      const written = await this.#opts.client.mergePatch<RecorderNodeObject>(Resources.recorderNodes, undefined, name, patch, { timeoutMs: 5000 });
      this.#opts.view.recorderNodes.upsert(written);
      return written;
    } catch (err) {
      if (err instanceof ApiError && err.status === 404) throw new ClusterRequestError('node_not_found', `no RecorderNode "${name}"`);
      throw unreachable(err);
    }
  }

  /** Until no Camera is assigned to this node or handed over from it (the operator moved them all), or the timeout. */
  /** Cameras the assignment gives this node, or moves away from it make-before-break. */
  #assignedHere(): number {
    const { view, nodeName } = this.#opts;
    return view.cameras.list().filter((c) => c.status?.node === nodeName || c.status?.handoverFrom === nodeName).length;
  }

  /** Waits until no camera is assigned here or handed over from here (or the timeout); answers how many still are. */
  async #waitForHandover(): Promise<number> {
    const { clock } = this.#opts;
    const deadline = clock.now() + (this.#opts.handoverTimeoutMs ?? 60_000);
    const mine = (): number => this.#assignedHere();
    while (mine() > 0 && clock.now() < deadline) await new Promise<void>((resolve) => clock.setTimeout(resolve, 250));
    if (mine() > 0) this.#opts.log.warn({ cameras: mine() }, 'leave: not every camera was taken over in time; stopping them anyway');
    return mine();
  }
}
