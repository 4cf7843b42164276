// How fast a node sends its cameras' status reports: a few in flight at once, and a report that failed waits a
// jittered, growing while before it is sent again. Every Camera status write is a "wide" request for kube-apiserver's
// priority and fairness (each of the hundreds of recorders' Camera watches counts), and a node given its cameras all at
// once used to send them all at once and again every second after each timeout: at 200 nodes, 5,000 reports queued
// past the API server's 15 s limit and came back 504 four times over (docs/benchmarks.md "scale").
import { conflictBackoffMs } from '@vigil/kube';

/** Reports in flight at once per node. */
export const REPORTS_IN_FLIGHT = 4;
/** A failed report waits at least this long, plus a random share of a window that doubles with each failure (2 s, 4 s, … 30 s). */
const RETRY_FLOOR_MS = 500;
const RETRY_BASE_MS = 2000;
const RETRY_MAX_MS = 30_000;

export class ReportPacing {
  readonly #inFlight = new Set<string>();
  readonly #failed = new Map<string, { failures: number; notBefore: number }>();

  constructor(private readonly limit = REPORTS_IN_FLIGHT, private readonly random: () => number = Math.random) {}

  /** A report for `id` may be sent now: a slot is free, none for it is in flight, and its retry time has come. */
  mayStart(id: string, now: number): boolean {
    return this.#inFlight.size < this.limit && !this.#inFlight.has(id) && now >= (this.#failed.get(id)?.notBefore ?? 0);
  }

  started(id: string): void {
    this.#inFlight.add(id);
  }

  succeeded(id: string): void {
    this.#inFlight.delete(id);
    this.#failed.delete(id);
  }

  /** The report failed (refused, timed out, answered 429 or 504): the next one waits. Returns how long. */
  failed(id: string, now: number): number {
    this.#inFlight.delete(id);
    const failures = (this.#failed.get(id)?.failures ?? 0) + 1;
    const waitMs = RETRY_FLOOR_MS + conflictBackoffMs(failures, RETRY_BASE_MS, RETRY_MAX_MS, this.random);
    this.#failed.set(id, { failures, notBefore: now + waitMs });
    return waitMs;
  }

  /** The camera is no longer this node's: its retry state goes. */
  forget(id: string): void {
    this.#failed.delete(id);
  }

  /** Cameras whose retry state is kept (failed, not yet reported since). */
  get waiting(): IterableIterator<string> {
    return this.#failed.keys();
  }
}
