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

/**
 * At most `capacity` async sections in flight, shared by several callers: when a slot frees, a waiting urgent section
 * goes before every waiting routine one (in the order each was asked). One writer's urgent writes (a camera given a
 * node) then never queue behind another's routine ones (a condition's wording) for the API server's time.
 */
export class PrioritySlots {
  #free: number;
  readonly #urgent: Array<() => void> = [];
  readonly #routine: Array<() => void> = [];

  constructor(readonly capacity: number) {
    this.#free = capacity;
  }

  /** Sections running or waiting for a slot. */
  get busy(): number {
    return this.capacity - this.#free + this.#urgent.length + this.#routine.length;
  }

  /** `fn` over `items` in these slots, each as urgent as `urgent` says (no more calls started than the slots hold). */
  async forEach<T>(items: readonly T[], urgent: (item: T) => boolean, fn: (item: T) => Promise<void>): Promise<void> {
    await forEachLimited(items, this.capacity, (item) => this.run(urgent(item), () => fn(item)));
  }

  async run<T>(urgent: boolean, section: () => Promise<T>): Promise<T> {
    if (this.#free > 0) this.#free--;
    else await new Promise<void>((resolve) => (urgent ? this.#urgent : this.#routine).push(resolve));
    try {
      return await section();
    } finally {
      const next = this.#urgent.shift() ?? this.#routine.shift();
      if (next !== undefined) next();
      else this.#free++;
    }
  }
}
