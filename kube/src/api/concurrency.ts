// Bounded concurrency for API writes: an async function over items with at most `limit` calls in flight, sections
// that must run one at a time, and long computations cut into slices that let the event loop breathe.
export async function forEachLimited<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const run = async () => {
    while (next < items.length) await fn(items[next++] as T);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, run));
}

/** Runs async sections one after the other, in the order asked: a decision that must see the previous one's effect. */
export class SerialSection {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(section: () => Promise<T>): Promise<T> {
    const result = this.tail.then(section);
    this.tail = result.catch(() => undefined);
    return result;
  }
}

/**
 * `fn` over `items` in slices of `slice`, letting the event loop run between slices (timers, answers, watch events):
 * a pass over thousands of objects must not hold a leader's Lease renewal back for seconds. Stops early when `signal`
 * aborts.
 */
export async function forEachSliced<T>(items: readonly T[], slice: number, signal: AbortSignal, fn: (item: T) => void): Promise<void> {
  for (let i = 0; i < items.length && !signal.aborted; i += slice) {
    if (i > 0) await new Promise<void>((resolve) => setImmediate(resolve));
    for (const item of items.slice(i, i + slice)) fn(item);
  }
}
