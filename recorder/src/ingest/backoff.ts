// Restart delays for a failing camera: 1 s doubling to 30 s, back to 1 s after a healthy run.
export class Backoff {
  #next: number;

  constructor(
    private readonly minMs = 1000,
    private readonly maxMs = 30_000,
  ) {
    this.#next = minMs;
  }

  /** The delay to wait now; the following one doubles up to the cap. */
  take(): number {
    const delay = this.#next;
    this.#next = Math.min(this.maxMs, this.#next * 2);
    return delay;
  }

  /** The cap: what a retry waits when retrying sooner could only do harm (refused credentials). */
  get longest(): number {
    return this.maxMs;
  }

  reset(): void {
    this.#next = this.minMs;
  }
}
