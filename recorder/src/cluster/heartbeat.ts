// The node's heartbeat: its Lease vigil-node-<name> (made by the operator) renewed every 2 s, carrying what the node
// reports about itself (url, public URL, version, cameras). Its silence is how the operator learns the node is gone.
import type { Logger } from 'pino';
import { NODE_LEASE_DURATION_SECONDS, NODE_LEASE_RENEW_SECONDS, nodeLeaseName } from '@vigil/crds';
import { isConflict, isNotFound, reportAnnotations, Resources, retryOnConflict, toMicroTime, type KubeClient, type Lease, type NodeReport } from '@vigil/kube';
import type { Clock, TimerHandle } from '../util/clock.js';
import { kubeClock } from './kube-connection.js';

export interface HeartbeatOptions {
  client: KubeClient;
  namespace: string;
  nodeName: string;
  clock: Clock;
  log: Logger;
  /** What the node reports with each renewal. */
  report(): NodeReport;
  renewMs?: number;
}

/** The Lease's annotations with the report merged in (a field without a value removed). */
function withReport(annotations: Record<string, string> | undefined, report: NodeReport): Record<string, string> {
  const next: Record<string, string> = { ...annotations };
  for (const [key, value] of Object.entries(reportAnnotations(report))) {
    if (value === null) delete next[key];
    else next[key] = value;
  }
  return next;
}

export class Heartbeat {
  readonly #opts: HeartbeatOptions;
  readonly #name: string;
  #timer: TimerHandle | undefined;
  #inFlight: Promise<void> | undefined;
  #paused = false;
  #failing = false;
  #missing = false;
  /**
   * The Lease as the last renewal wrote it: the next renewal replaces it without reading it first (one request per
   * renewal, as the kubelet renews its node Lease). A 409 (someone else wrote the Lease) or any failure drops it, and
   * the next attempt reads the Lease again.
   */
  #last: Lease | undefined;
  /** When the Lease was last renewed (clock ms); undefined before the first success. */
  lastRenewedAt: number | undefined;

  constructor(opts: HeartbeatOptions) {
    this.#opts = opts;
    this.#name = nodeLeaseName(opts.nodeName);
  }

  get leaseName(): string {
    return this.#name;
  }

  start(): void {
    if (this.#timer !== undefined) return;
    void this.renew();
    this.#timer = this.#opts.clock.setInterval(() => void this.renew(), this.#opts.renewMs ?? NODE_LEASE_RENEW_SECONDS * 1000);
  }

  stop(): void {
    this.#opts.clock.clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /** After leaving the cluster the node stops announcing itself until it is added back. */
  get paused(): boolean {
    return this.#paused;
  }

  pause(): void {
    this.#paused = true;
  }

  resume(): void {
    if (!this.#paused) return;
    this.#paused = false;
    void this.renew();
  }

  /** One renewal; a renewal still running is joined, never stacked behind a hung API. */
  renew(): Promise<void> {
    if (this.#paused) return Promise.resolve();
    this.#inFlight ??= this.#renewOnce().finally(() => (this.#inFlight = undefined));
    return this.#inFlight;
  }

  /** Sets annotations on the Lease without renewing it (a membership request; also while paused). */
  async annotate(annotations: Record<string, string | null>): Promise<void> {
    this.#last = undefined;
    await this.#opts.client.mergePatch<Lease>(Resources.leases, this.#opts.namespace, this.#name, { metadata: { annotations } }, { timeoutMs: 5000 });
  }

  async deleteLease(): Promise<void> {
    this.#last = undefined;
    await this.#opts.client.delete(Resources.leases, this.#opts.namespace, this.#name, { timeoutMs: 3000 });
  }

  async #renewOnce(): Promise<void> {
    const { client, namespace, nodeName, clock, log } = this.#opts;
    const timeoutMs = 1500;
    try {
      // A membership request patched onto the Lease in between makes the write a 409: read again, soon (jittered).
      await retryOnConflict(async () => {
        const current = this.#last ?? (await client.get<Lease>(Resources.leases, namespace, this.#name, { timeoutMs }));
        this.#last = undefined;
        if (current === undefined) throw new NoLeaseYet();
        const now = toMicroTime(clock.now());
        const spec = { ...current.spec, holderIdentity: nodeName, leaseDurationSeconds: NODE_LEASE_DURATION_SECONDS, renewTime: now };
        if (!current.spec?.acquireTime || current.spec.holderIdentity !== nodeName) spec.acquireTime = now;
        const metadata = { ...current.metadata, annotations: withReport(current.metadata.annotations, this.#opts.report()) };
        this.#last = await client.replace<Lease>(Resources.leases, { ...current, metadata, spec }, { timeoutMs });
      }, { clock: kubeClock(clock), attempts: 3, baseMs: 100, maxMs: 500 });
      this.lastRenewedAt = clock.now();
      if (this.#failing || this.#missing) log.info({ lease: this.#name }, 'heartbeat renewed');
      this.#failing = false;
      this.#missing = false;
    } catch (err) {
      if (err instanceof NoLeaseYet || isNotFound(err)) {
        // The operator makes every node's Lease (a recorder may not create Leases): it appears once the node has a RecorderNode.
        if (!this.#missing) log.warn({ lease: this.#name }, `no heartbeat Lease ${this.#name} yet; the operator makes it for a node with a RecorderNode`);
        this.#missing = true;
        return;
      }
      if (isConflict(err)) return; // still contended after the retries: the next tick renews from a fresh copy
      if (!this.#failing) log.warn({ lease: this.#name, err: (err as Error).message }, 'cannot renew the heartbeat Lease; recording goes on');
      this.#failing = true;
    }
  }
}

class NoLeaseYet extends Error {}
