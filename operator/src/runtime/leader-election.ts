// Leader election on a coordination.k8s.io/v1 Lease (client-go leaderelection semantics): acquire, renew every retry
// period, lose leadership when no renewal succeeded within the renew deadline, release on shutdown.
//
// Expiry is judged by the local clock from the moment this process last saw the record change (not by the record's
// renewTime), so clock skew between machines cannot make two leaders.
import type { Logger } from 'pino';
import { toMicroTime, type Clock, type Lease } from '@vigil/kube';

/** What leader election needs of the API: one Lease, read and written with its resourceVersion. */
export interface LeaseStore {
  get(signal: AbortSignal): Promise<Lease | undefined>;
  create(lease: Lease, signal: AbortSignal): Promise<Lease>;
  /** A replace with the lease's resourceVersion (rejects on conflict). */
  update(lease: Lease, signal: AbortSignal): Promise<Lease>;
}

export interface LeaderElectionTiming {
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
}

export interface LeaderElectorOptions extends LeaderElectionTiming {
  identity: string;
  leaseName: string;
  namespace: string;
  store: LeaseStore;
  clock: Clock;
  log: Logger;
  /** Called whenever the observed holder changes (also for other holders); '' when nobody holds it. */
  onLeaderChange?: (holder: string) => void;
  /** Published on the Lease with every acquisition and renewal (what the leader wants every reader to know). */
  annotations?: Record<string, string>;
}

export type ElectionOutcome = 'lost' | 'stopped';

/** How soon a leader tries again after a renewal attempt failed. */
const RETRY_AFTER_FAILURE_MS = 250;

export class LeaderElector {
  private observed: { record: string; at: number; lease: Lease } | undefined;
  private leading = false;
  private lastRenew = 0;
  private holder = '';

  constructor(private readonly opts: LeaderElectorOptions) {
    if (opts.renewDeadlineMs >= opts.leaseDurationMs) throw new Error('the renew deadline must be shorter than the lease duration');
    if (opts.retryPeriodMs >= opts.renewDeadlineMs) throw new Error('the retry period must be shorter than the renew deadline');
  }

  isLeader(): boolean {
    return this.leading;
  }

  /** The identity that holds the Lease as last seen ('' when none). */
  currentHolder(): string {
    return this.holder;
  }

  /**
   * Waits until this process holds the Lease (resolves true), or until `signal` aborts (false).
   */
  async acquire(signal: AbortSignal): Promise<boolean> {
    const { clock, retryPeriodMs } = this.opts;
    while (!signal.aborted) {
      if (await this.tryAcquireOrRenew(signal)) {
        this.leading = true;
        this.opts.log.info({ lease: this.opts.leaseName }, 'became the leader');
        return true;
      }
      // client-go jitters the retry by up to 20 % so that standbys do not all ask at once.
      await clock.sleep(retryPeriodMs * (1 + Math.random() * 0.2), signal);
    }
    return false;
  }

  /**
   * Renews every retry period while leading. Resolves 'lost' when no renewal succeeded within the renew deadline
   * (the caller must stop acting at once), 'stopped' when `signal` aborts (the caller then calls release()).
   */
  async renewUntilLost(signal: AbortSignal): Promise<ElectionOutcome> {
    const { clock, retryPeriodMs, renewDeadlineMs } = this.opts;
    let failed = false;
    /** How late the last wake-up came: a busy event loop (this process's own work) delays the renewal as a slow API does. */
    let lateMs = 0;
    while (!signal.aborted) {
      // After a failed attempt (a reset connection, a slow answer cut off) the next comes sooner: the deadline runs.
      const waitMs = failed ? Math.min(retryPeriodMs, RETRY_AFTER_FAILURE_MS) : retryPeriodMs;
      const sleptFrom = clock.now();
      await clock.sleep(waitMs, signal);
      if (signal.aborted) break;
      lateMs = Math.max(0, clock.now() - sleptFrom - waitMs);
      const left = this.lastRenew + renewDeadlineMs - clock.now();
      // Each attempt ends by the renew deadline at the latest (a hanging API server must not outlast it).
      const attempt = new AbortController();
      const deadline = new AbortController();
      void clock.sleep(Math.max(1, left), deadline.signal).then(() => attempt.abort());
      const onStop = () => attempt.abort();
      signal.addEventListener('abort', onStop, { once: true });
      const startedAt = clock.now();
      const ok = await this.tryAcquireOrRenew(attempt.signal).finally(() => {
        deadline.abort();
        signal.removeEventListener('abort', onStop);
      });
      if (signal.aborted) break;
      failed = !ok;
      if (!ok && clock.now() - this.lastRenew >= renewDeadlineMs) {
        this.leading = false;
        // How long the last attempt ran, whether the deadline cut it off (an API server that did not answer in time), and
        // how late its timer fired (this process's event loop was busy).
        const attemptMs = clock.now() - startedAt;
        this.opts.log.error({ sinceRenewMs: clock.now() - this.lastRenew, attemptMs, cutOff: attempt.signal.aborted, lateMs }, 'leadership lost: no renewal within the renew deadline');
        return 'lost';
      }
    }
    return 'stopped';
  }

  /** Gives the Lease up (holder '' and duration 1 s) so that a standby takes over at once. */
  async release(timeoutMs = 2000): Promise<void> {
    if (!this.leading) return;
    this.leading = false;
    const signal = AbortSignal.timeout(timeoutMs);
    const give = (lease: Lease) => {
      const now = toMicroTime(this.opts.clock.now());
      return this.opts.store.update({ ...lease, spec: { ...lease.spec, holderIdentity: '', leaseDurationSeconds: 1, renewTime: now, acquireTime: now } }, signal);
    };
    try {
      const known = this.observed?.lease;
      try {
        if (!known) throw new Error('no Lease seen yet');
        await give(known);
      } catch {
        // A renewal that was under way when we stopped may have changed the version: read it once more.
        const fresh = await this.opts.store.get(signal);
        if (fresh?.spec?.holderIdentity !== this.opts.identity) return;
        await give(fresh);
      }
      this.opts.log.info('leadership released');
    } catch (err) {
      this.opts.log.warn({ err: (err as Error).message }, 'could not release the leader Lease; the standby takes over when it expires');
    }
  }

  /** One attempt: create the Lease, renew it, or take it over when expired or released. */
  async tryAcquireOrRenew(signal: AbortSignal): Promise<boolean> {
    const { identity, leaseName, namespace, store, clock, leaseDurationMs } = this.opts;
    const now = clock.now();
    const spec = (lease?: Lease) => ({
      holderIdentity: identity,
      leaseDurationSeconds: Math.round(leaseDurationMs / 1000),
      acquireTime: lease?.spec?.holderIdentity === identity && lease.spec.acquireTime ? lease.spec.acquireTime : toMicroTime(now),
      renewTime: toMicroTime(now),
      leaseTransitions: (lease?.spec?.leaseTransitions ?? 0) + (lease && lease.spec?.holderIdentity !== identity ? 1 : 0),
    });
    // The leader first writes over the Lease its last renewal returned: one request per renewal, as client-go's
    // optimistic renewal. Anything else (a conflict, a refusal) falls back to reading the Lease.
    const mine = this.observed?.lease;
    if (this.leading && mine?.spec?.holderIdentity === identity) {
      try {
        this.renewed(await store.update({ ...mine, spec: spec(mine) }, signal));
        return true;
      } catch (err) {
        if (signal.aborted) return false;
        this.opts.log.debug({ err: (err as Error).message }, 'leader Lease: renewal over the last copy failed; reading it');
      }
    }
    try {
      const current = await store.get(signal);
      if (!current) {
        const metadata = { name: leaseName, namespace, ...(this.opts.annotations ? { annotations: this.opts.annotations } : {}) };
        const created = await store.create({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata, spec: spec() }, signal);
        this.renewed(created);
        return true;
      }
      this.observe(current, now);
      const holder = current.spec?.holderIdentity ?? '';
      const durationMs = (current.spec?.leaseDurationSeconds ?? Math.round(leaseDurationMs / 1000)) * 1000;
      const valid = this.observed !== undefined && this.observed.at + durationMs > now;
      if (holder !== '' && holder !== identity && valid) return false;
      const metadata = this.opts.annotations ? { ...current.metadata, annotations: { ...current.metadata.annotations, ...this.opts.annotations } } : current.metadata;
      const updated = await store.update({ ...current, metadata, spec: spec(current) }, signal);
      this.renewed(updated);
      return true;
    } catch (err) {
      if (!signal.aborted) this.opts.log.warn({ err: (err as Error).message }, 'leader Lease: acquire/renew failed');
      return false;
    }
  }

  /**
   * A write of ours succeeded. As in client-go, the renew deadline counts from when the write was answered (on a
   * slow API server an acquisition that took seconds is not already lost); a standby counts the lease duration from
   * when it saw the write, which is never earlier than when it landed.
   */
  private renewed(lease: Lease): void {
    const now = this.opts.clock.now();
    this.observe(lease, now);
    this.lastRenew = now;
  }

  private observe(lease: Lease, now: number): void {
    const s = lease.spec ?? {};
    const record = JSON.stringify([s.holderIdentity, s.renewTime, s.acquireTime, s.leaseTransitions, s.leaseDurationSeconds]);
    if (this.observed?.record !== record) this.observed = { record, at: now, lease };
    else this.observed.lease = lease;
    const holder = s.holderIdentity ?? '';
    if (holder !== this.holder) {
      this.holder = holder;
      this.opts.onLeaderChange?.(holder);
    }
  }
}
