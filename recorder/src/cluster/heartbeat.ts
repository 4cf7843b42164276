// The node's heartbeat: Lease vigil-node-<name> renewed every 2 s; its silence is how the operator learns the node is gone.
import type { Logger } from 'pino';
import { NODE_LEASE_DURATION_SECONDS, NODE_LEASE_RENEW_SECONDS, nodeLeaseName } from '@vigil/crds';
import { isConflict, Resources, toMicroTime, type KubeClient, type Lease } from '@vigil/kube';
import type { Clock, TimerHandle } from '../util/clock.js';

export interface HeartbeatOptions {
  client: KubeClient;
  namespace: string;
  nodeName: string;
  clock: Clock;
  log: Logger;
  renewMs?: number;
}

export class Heartbeat {
  readonly #opts: HeartbeatOptions;
  readonly #name: string;
  #timer: TimerHandle | undefined;
  #inFlight: Promise<void> | undefined;
  #paused = false;
  #failing = false;
  /** When the Lease was last renewed (clock ms); undefined before the first success. */
  lastRenewedAt: number | undefined;

  constructor(opts: HeartbeatOptions) {
    this.#opts = opts;
    this.#name = nodeLeaseName(opts.nodeName);
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

  /** One renewal (creating the Lease when absent); a renewal still running is joined, never stacked behind a hung API. */
  renew(): Promise<void> {
    if (this.#paused) return Promise.resolve();
    this.#inFlight ??= this.#renewOnce().finally(() => (this.#inFlight = undefined));
    return this.#inFlight;
  }

  async deleteLease(): Promise<void> {
    await this.#opts.client.delete(Resources.leases, this.#opts.namespace, this.#name, { timeoutMs: 3000 });
  }

  async #renewOnce(): Promise<void> {
    const { client, namespace, nodeName, clock, log } = this.#opts;
    const timeoutMs = 1500;
    try {
      const now = toMicroTime(clock.now());
      const current = await client.get<Lease>(Resources.leases, namespace, this.#name, { timeoutMs });
      if (current === undefined) {
        await client.create<Lease>(Resources.leases, {
          apiVersion: 'coordination.k8s.io/v1',
          kind: 'Lease',
          metadata: { name: this.#name, namespace, labels: { 'app.kubernetes.io/name': 'vigil', 'vigil.io/node': nodeName } },
          spec: { holderIdentity: nodeName, leaseDurationSeconds: NODE_LEASE_DURATION_SECONDS, acquireTime: now, renewTime: now },
        }, { timeoutMs });
      } else {
        const spec = { ...current.spec, holderIdentity: nodeName, leaseDurationSeconds: NODE_LEASE_DURATION_SECONDS, renewTime: now };
        if (current.spec?.holderIdentity !== nodeName) spec.acquireTime = now;
        await client.replace<Lease>(Resources.leases, { ...current, spec }, { timeoutMs });
      }
      this.lastRenewedAt = clock.now();
      if (this.#failing) log.info({ lease: this.#name }, 'heartbeat renewed again');
      this.#failing = false;
    } catch (err) {
      if (isConflict(err)) return; // someone wrote it in between; the next tick renews from the fresh copy
      if (!this.#failing) log.warn({ lease: this.#name, err: (err as Error).message }, 'cannot renew the heartbeat Lease; recording goes on');
      this.#failing = true;
    }
  }
}
