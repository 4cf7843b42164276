// Per-camera occupancy rollup by UTC hour: which hours hold recordings, and from when to when inside each.
import type { DayClock } from './day-clock.js';

const HOUR_MS = 3_600_000;

interface Bucket {
  count: number;
  /** Earliest recorded instant inside the hour. */
  first: number;
  /** Latest recorded instant inside the hour (exclusive end). */
  last: number;
}

/**
 * Days on any clock come from the buckets alone: an hour bucket's recordings span at most two
 * calendar days, and those are exactly the days of `first` and of `last - 1 ms` (the earliest
 * and latest recorded instants), whatever the offset. A year is 8,760 buckets per camera.
 */
export class HourBuckets {
  readonly #buckets = new Map<number, Bucket>();
  /** Days per clock, for the current contents (cleared on every change). */
  readonly #cache = new Map<string, string[]>();

  add(start: number, end: number): void {
    this.#cache.clear();
    const last = Math.max(start, end);
    for (let h = Math.floor(start / HOUR_MS); h * HOUR_MS < last || h === Math.floor(start / HOUR_MS); h++) {
      const hStart = h * HOUR_MS;
      const from = Math.max(start, hStart);
      const to = Math.max(from, Math.min(last, hStart + HOUR_MS));
      const b = this.#buckets.get(h);
      if (b === undefined) this.#buckets.set(h, { count: 1, first: from, last: to });
      else {
        b.count++;
        b.first = Math.min(b.first, from);
        b.last = Math.max(b.last, to);
      }
    }
  }

  /**
   * Removes one segment; `coverage(hStart, hEnd)` must return the earliest start and latest end
   * of the segments still recorded in that hour (after the removal), clipped to it.
   */
  remove(start: number, end: number, coverage: (hStart: number, hEnd: number) => { first: number; last: number } | undefined): void {
    this.#cache.clear();
    const last = Math.max(start, end);
    for (let h = Math.floor(start / HOUR_MS); h * HOUR_MS < last || h === Math.floor(start / HOUR_MS); h++) {
      const b = this.#buckets.get(h);
      if (b === undefined) continue;
      b.count--;
      const left = b.count > 0 ? coverage(h * HOUR_MS, (h + 1) * HOUR_MS) : undefined;
      if (left === undefined) this.#buckets.delete(h);
      else {
        b.first = left.first;
        b.last = left.last;
      }
    }
  }

  get size(): number {
    return this.#buckets.size;
  }

  /** Every day (YYYY-MM-DD on `clock`) holding a recorded instant, ascending; `extra` adds the open segment. */
  days(clock: DayClock, cacheKey: string): string[] {
    const cached = this.#cache.get(cacheKey);
    if (cached !== undefined) return cached;
    const set = new Set<string>();
    for (const b of this.#buckets.values()) {
      set.add(clock.dayOf(b.first));
      set.add(clock.dayOf(Math.max(b.first, b.last - 1)));
    }
    const days = [...set].sort();
    this.#cache.set(cacheKey, days);
    return days;
  }
}
