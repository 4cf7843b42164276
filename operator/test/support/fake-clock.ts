// A Clock for unit tests: time moves only when the test advances it; sleepers wake in time order.
import type { Clock } from '@vigil/kube';

export class FakeClock implements Clock {
  private sleepers: Array<{ at: number; resolve: () => void }> = [];

  constructor(private t = Date.parse('2026-01-01T00:00:00Z')) {}

  now(): number {
    return this.t;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      if (signal?.aborted) return resolve();
      const onAbort = () => {
        this.sleepers = this.sleepers.filter((s) => s !== entry);
        resolve();
      };
      // Woken by time, it lets go of the signal (as systemClock does): a long-lived signal collects no listeners.
      const entry = { at: this.t + ms, resolve: () => (signal?.removeEventListener('abort', onAbort), resolve()) };
      this.sleepers.push(entry);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Moves time forward, waking every sleeper due, and lets the woken code run. */
  async advance(ms: number): Promise<void> {
    const end = this.t + ms;
    for (;;) {
      const due = this.sleepers.filter((s) => s.at <= end).sort((a, b) => a.at - b.at)[0];
      if (!due) break;
      this.t = Math.max(this.t, due.at);
      this.sleepers = this.sleepers.filter((s) => s !== due);
      due.resolve();
      await settle();
    }
    this.t = end;
    await settle();
  }

  /**
   * Moves time forward and wakes no one, as a blocked event loop lets time pass: every sleeper due meanwhile wakes late,
   * at the next advance().
   */
  stall(ms: number): void {
    this.t += ms;
  }
}

/** Lets pending promise callbacks run. */
export async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) await new Promise<void>((r) => setImmediate(r));
}
