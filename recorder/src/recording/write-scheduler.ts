// One write tick for every segment writer of a recorder: the cameras' batches go to the thread pool together.

/** What the scheduler needs from a writer. */
export interface ScheduledWriter {
  /** Called once at the tick after writeWaiting(): hand the batch to the disk now (or enlist again if it cannot). */
  writeDue(): void;
}

export interface WriteSchedulerOptions {
  /** How often waiting batches are written, in ms (default 200). */
  periodMs?: number;
}

const DEFAULT_PERIOD_MS = 200;

/**
 * Each file write goes through libuv's thread pool, and handing one over wakes a sleeping pool thread: on this
 * class of machine that wake-up, and the one back to the event loop, cost more than the write itself. Writes spread
 * evenly (each camera's batch due at its own moment, 250 a second for 50 cameras) cost 6 % of a core in a probe;
 * the same writes handed over together five times a second cost 1.4 %, because a pool thread that finds more work
 * queued does not sleep, and its completions reach the event loop in one wake-up.
 *
 * So a segment writer does not time its own batch: it enlists when its batch gets its first fragment, and every
 * enlisted writer is called in one go at the next tick. Create one per recorder and give it to every writer.
 */
export class WriteScheduler {
  readonly periodMs: number;
  #waiting = new Set<ScheduledWriter>();
  #timer: NodeJS.Timeout | undefined;
  #ticks = 0;

  constructor(options: WriteSchedulerOptions = {}) {
    const periodMs = options.periodMs ?? DEFAULT_PERIOD_MS;
    if (!Number.isFinite(periodMs) || periodMs <= 0) throw new RangeError('WriteScheduler: periodMs must be a number > 0');
    this.periodMs = periodMs;
  }

  /** Ticks that called at least one writer. */
  get ticks(): number {
    return this.#ticks;
  }

  /** `writer` has bytes waiting: its writeDue() is called once, at the next tick. */
  writeWaiting(writer: ScheduledWriter): void {
    this.#waiting.add(writer);
    // Not unref'd: bytes wait in memory until this fires, so it must keep the process alive.
    if (this.#timer === undefined) this.#timer = setTimeout(() => this.#tick(), this.periodMs);
  }

  /** A writer that wrote its batch early, or is closing, is not called. */
  forget(writer: ScheduledWriter): void {
    this.#waiting.delete(writer);
  }

  #tick(): void {
    this.#timer = undefined;
    const due = this.#waiting;
    if (due.size === 0) return;
    this.#waiting = new Set();
    this.#ticks++;
    for (const writer of due) writer.writeDue();
  }
}
