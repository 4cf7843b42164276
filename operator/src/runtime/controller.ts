// Controller: runs a reconcile function over the keys of its work queue with a few workers, one reconcile per key at a
// time; a failed reconcile is retried with the key's backoff, a successful one may ask to run again after a delay.
import type { Logger } from 'pino';
import { isConflict } from '@vigil/kube';
import type { OperatorMetrics } from '../metrics.js';
import type { WorkQueue } from './workqueue.js';

export interface ReconcileResult {
  requeueAfterMs?: number;
}

export type Reconcile = (key: string, signal: AbortSignal) => Promise<ReconcileResult | void>;

export class Controller {
  private running: Promise<void>[] = [];

  constructor(
    readonly name: string,
    readonly queue: WorkQueue,
    private readonly reconcile: Reconcile,
    private readonly log: Logger,
    private readonly metrics: OperatorMetrics,
    private readonly workers = 2,
  ) {}

  enqueue(key: string): void {
    this.queue.add(key);
  }

  start(signal: AbortSignal): void {
    for (let i = 0; i < this.workers; i++) this.running.push(this.work(signal));
  }

  /** Stops taking keys and waits for the reconciles in flight. */
  async stop(): Promise<void> {
    this.queue.shutDown();
    await Promise.allSettled(this.running);
    this.running = [];
  }

  private async work(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      const key = await this.queue.get();
      if (key === undefined) return;
      this.metrics.queueDepth.set({ controller: this.name }, this.queue.length);
      try {
        const result = await this.reconcile(key, signal);
        this.metrics.reconciles.inc({ controller: this.name });
        this.queue.forget(key);
        if (result?.requeueAfterMs !== undefined && !signal.aborted) this.queue.addAfter(key, result.requeueAfterMs);
      } catch (err) {
        this.metrics.reconciles.inc({ controller: this.name });
        if (signal.aborted) break;
        this.metrics.reconcileErrors.inc({ controller: this.name });
        // A conflict means another writer was there at the same moment: its retry is jittered.
        const delay = this.queue.addRateLimited(key, isConflict(err) ? Math.random : undefined);
        // A conflict is the normal outcome of a concurrent writer: re-read and try again, quietly.
        if (isConflict(err)) this.log.debug({ key, delay }, 'conflict; requeued');
        else this.log.warn({ key, delay, err: (err as Error).message }, 'reconcile failed; requeued with backoff');
      } finally {
        this.queue.done(key);
      }
    }
  }
}
