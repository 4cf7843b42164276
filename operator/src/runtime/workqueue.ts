// A de-duplicating work queue keyed by object: one pending entry per key, one reconcile per key at a time, delayed
// re-adds (slept on the injected clock) and per-key exponential backoff (client-go workqueue / controller-runtime semantics).
import type { Clock } from '@vigil/kube';

export interface BackoffOptions {
  baseMs: number;
  maxMs: number;
}

export class WorkQueue {
  private readonly pending: string[] = [];
  private readonly queued = new Set<string>();
  private readonly active = new Set<string>();
  /** Keys added again while a reconcile of theirs was running: queued when it finishes. */
  private readonly dirty = new Set<string>();
  private readonly timers = new Map<string, { at: number; cancel: AbortController }>();
  private readonly failures = new Map<string, number>();
  private readonly waiters: Array<(key: string | undefined) => void> = [];
  private shuttingDown = false;

  constructor(
    private readonly clock: Clock,
    private readonly backoff: BackoffOptions = { baseMs: 200, maxMs: 30_000 },
  ) {}

  /** Queues the key unless it is already waiting; a key being reconciled is queued again when that ends. */
  add(key: string): void {
    if (this.shuttingDown) return;
    if (this.active.has(key)) {
      this.dirty.add(key);
      return;
    }
    if (this.queued.has(key)) return;
    this.queued.add(key);
    const waiter = this.waiters.shift();
    if (waiter) {
      this.queued.delete(key);
      this.active.add(key);
      waiter(key);
      return;
    }
    this.pending.push(key);
  }

  /** Queues the key after `ms`; an earlier pending delay for the same key wins. */
  addAfter(key: string, ms: number): void {
    if (this.shuttingDown) return;
    if (ms <= 0) return this.add(key);
    const at = this.clock.now() + ms;
    const existing = this.timers.get(key);
    if (existing && existing.at <= at) return;
    existing?.cancel.abort();
    const cancel = new AbortController();
    this.timers.set(key, { at, cancel });
    void this.clock.sleep(ms, cancel.signal).then(() => {
      if (cancel.signal.aborted) return;
      this.timers.delete(key);
      this.add(key);
    });
  }

  /**
   * Queues the key after its backoff (base × 2^failures, capped) and counts one more failure. With `jitter` (a draw
   * in [0, 1)) the delay is spread over [half, all] of it, so that two writers that collided do not collide again.
   */
  addRateLimited(key: string, jitter?: () => number): number {
    const n = this.failures.get(key) ?? 0;
    this.failures.set(key, n + 1);
    const full = Math.min(this.backoff.maxMs, this.backoff.baseMs * 2 ** n);
    const delay = jitter ? Math.round(full / 2 + (jitter() * full) / 2) : full;
    this.addAfter(key, delay);
    return delay;
  }

  /** The key succeeded: its backoff starts over. */
  forget(key: string): void {
    this.failures.delete(key);
  }

  failuresOf(key: string): number {
    return this.failures.get(key) ?? 0;
  }

  /** The next key to reconcile (marked active), or undefined once the queue shuts down. */
  get(): Promise<string | undefined> {
    const key = this.pending.shift();
    if (key !== undefined) {
      this.queued.delete(key);
      this.active.add(key);
      return Promise.resolve(key);
    }
    if (this.shuttingDown) return Promise.resolve(undefined);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** The reconcile of `key` ended; a key added meanwhile is queued now. */
  done(key: string): void {
    this.active.delete(key);
    if (this.dirty.delete(key)) this.add(key);
  }

  /** Keys waiting (not counting the ones being reconciled or delayed). */
  get length(): number {
    return this.pending.length;
  }

  shutDown(): void {
    this.shuttingDown = true;
    for (const { cancel } of this.timers.values()) cancel.abort();
    this.timers.clear();
    this.pending.length = 0;
    this.queued.clear();
    for (const waiter of this.waiters.splice(0)) waiter(undefined);
  }
}
