// The spec's membership endpoints on Kubernetes: leave, remove-node, add-learner, change-membership. The recorder
// checks what it can against its view and asks the operator (membership-request-channel.ts), which alone may change
// membership; leave then hands this node's cameras over and stops it.
import type { Logger } from 'pino';
import type { Clock } from '../util/clock.js';
import type { AssignmentCache } from './assignment-cache.js';
import type { ClusterCameraSource } from './cluster-camera-source.js';
import { ClusterRequestError } from './cluster-errors.js';
import type { ClusterView } from './cluster-view.js';
import type { Heartbeat } from './heartbeat.js';
import type { MembershipRequestChannel } from './membership-request-channel.js';

export interface LeaveResult {
  node_name: string;
  /** Cameras another node took over before this one stopped them. */
  handed_over: number;
  /** Cameras this node stopped without a new node recording them (the handover timed out, or force without the API). */
  stopped_without_handover: number;
}

export interface ClusterMembershipOptions {
  view: ClusterView;
  nodeName: string;
  heartbeat: Heartbeat;
  requests: MembershipRequestChannel;
  source: ClusterCameraSource;
  cache: AssignmentCache;
  clock: Clock;
  log: Logger;
  /** How long leave waits for the operator to move this node's cameras (make-before-break). */
  handoverTimeoutMs?: number;
}

export class ClusterMembership {
  readonly #opts: ClusterMembershipOptions;
  /** A forced leave the operator did not carry out: asked again once the API and the operator answer. */
  #unfinishedLeave = false;
  #finishing = false;

  constructor(opts: ClusterMembershipOptions) {
    this.#opts = opts;
  }

  /**
   * This node leaves: the operator sets member false and `vigil.io/left` and moves its cameras make-before-break;
   * once they record elsewhere (or after the timeout) it stops recording, deletes its heartbeat Lease and erases
   * cluster.dataDir/node_<name>. With `force` the local part happens even when the API or the operator cannot act.
   */
  async leave(force: boolean): Promise<LeaveResult> {
    const { nodeName, heartbeat, source, cache, log, requests } = this.#opts;
    let apiReached = true;
    try {
      await requests.ask('leave');
    } catch (err) {
      if (!force || (err instanceof ClusterRequestError && err.kind === 'node_not_found')) throw err;
      apiReached = false;
      this.#unfinishedLeave = true;
      log.warn({ err: (err as Error).message }, 'leave with force: the leave could not be recorded; stopping this node\'s cameras anyway');
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

  /** Asks again for what a forced leave could not record, so the node stays out once the API answers. */
  async finishLeave(): Promise<void> {
    if (!this.#unfinishedLeave || this.#finishing) return;
    this.#finishing = true;
    const { log, heartbeat } = this.#opts;
    try {
      await this.#opts.requests.ask('leave');
      this.#unfinishedLeave = false;
      await heartbeat.deleteLease().catch(() => undefined);
      log.info('the Kubernetes API answers again: this node\'s forced leave is now recorded on its RecorderNode');
    } catch (err) {
      if (err instanceof ClusterRequestError && err.kind === 'node_not_found') this.#unfinishedLeave = false;
    } finally {
      this.#finishing = false;
    }
  }

  /** The node leaves membership (its vote stops counting); the operator moves its cameras (at once when it is silent). */
  async removeNode(name: string): Promise<void> {
    this.#known([name]);
    await this.#opts.requests.ask('remove-node', { nodes: [name] });
    this.#opts.log.info({ node: name }, 'node removed from membership');
  }

  /** A RecorderNode that watches and reports but takes no cameras and does not vote; created when absent. */
  async addLearner(name: string, url: string | undefined): Promise<void> {
    await this.#opts.requests.ask('add-learner', { nodes: [name], ...(url !== undefined ? { url } : {}) });
    this.#opts.log.info({ node: name }, 'node added as a learner');
  }

  /** `members` vote and take cameras; every other RecorderNode becomes a learner. Unknown names change nothing. */
  async changeMembership(members: readonly string[]): Promise<void> {
    if (members.length === 0) throw new ClusterRequestError('invalid_membership', 'members must name at least one node');
    this.#known(members);
    await this.#opts.requests.ask('change-membership', { nodes: [...members] });
    this.#opts.log.info({ members }, 'membership changed');
  }

  /** Names this node knows no RecorderNode of are refused at once (the operator checks again). */
  #known(names: readonly string[]): void {
    const { view } = this.#opts;
    if (!view.synced) return;
    const unknown = names.filter((n) => view.recorderNode(n) === undefined);
    if (unknown.length > 0) throw new ClusterRequestError('node_not_found', `no RecorderNode ${unknown.map((u) => JSON.stringify(u)).join(', ')}`);
  }

  /** Cameras the assignment gives this node, or moves away from it make-before-break. */
  #assignedHere(): number {
    return this.#opts.view.recordedHere().length;
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
