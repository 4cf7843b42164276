// Keeps each camera's last still for a short time and lets concurrent requests share one fetch (single flight).

export interface CachedValue<T> {
  value: T;
  /** Whole seconds the value stays fresh, for Cache-Control max-age. */
  maxAgeSeconds: number;
}

interface Entry<T> {
  value: T;
  /** What produced the value (e.g. the snapshot URL); a different one is a miss. */
  source: string;
  expiresAt: number;
}

interface Flight<T> {
  source: string;
  promise: Promise<T>;
}

export class SingleFlightCache<T> {
  readonly #ttlMs: number;
  readonly #now: () => number;
  readonly #entries = new Map<string, Entry<T>>();
  readonly #flights = new Map<string, Flight<T>>();

  constructor(ttlMs: number, now: () => number) {
    this.#ttlMs = ttlMs;
    this.#now = now;
  }

  /**
   * The fresh value for `key`, else the value of the fetch already running for it, else a new fetch.
   * Only successes are kept; a failure reaches every request that waited for that fetch, and the next request fetches again.
   */
  async get(key: string, source: string, load: () => Promise<T>): Promise<CachedValue<T>> {
    this.#sweep();
    const cached = this.#fresh(key, source);
    if (cached !== undefined) return cached;
    let flight = this.#flights.get(key);
    if (flight === undefined || flight.source !== source) {
      const promise = load().then((value) => {
        this.#entries.set(key, { value, source, expiresAt: this.#now() + this.#ttlMs });
        return value;
      });
      const mine: Flight<T> = { source, promise };
      flight = mine;
      this.#flights.set(key, mine);
      const forget = (): void => {
        if (this.#flights.get(key) === mine) this.#flights.delete(key);
      };
      promise.then(forget, forget);
    }
    await flight.promise;
    return this.#fresh(key, source) ?? { value: await flight.promise, maxAgeSeconds: 0 };
  }

  #fresh(key: string, source: string): CachedValue<T> | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined || entry.source !== source) return undefined;
    const left = entry.expiresAt - this.#now();
    if (left <= 0) return undefined;
    return { value: entry.value, maxAgeSeconds: Math.round(left / 1000) };
  }

  /** Expired values are dropped so a camera nobody asks for holds no memory. */
  #sweep(): void {
    const now = this.#now();
    for (const [key, entry] of this.#entries) if (entry.expiresAt <= now) this.#entries.delete(key);
  }
}
