// One subscriber's bounded queue: delivers items in order, never blocks the hub, skips to a keyframe when full.
import { itemBytes, type StreamItem, type SubscriberKind } from './stream-item.js';

export interface SubscriberOptions {
  kind: SubscriberKind;
  /** Queued bytes past which the backlog is dropped and delivery resumes at the next keyframe. */
  maxQueuedBytes: number;
  handle(item: StreamItem): Promise<void> | void;
  onError?(err: unknown): void;
  /**
   * The handler holds a fragment's lease itself for as long as it keeps the fragment's bytes after it returns (the
   * segment writer does): the queue then holds it only while the fragment waits. Otherwise (default) every fragment
   * queued is marked kept forever, and its memory is never reused.
   */
  handlerHoldsLeases?: boolean;
}

interface Queued {
  item: StreamItem;
  /** Ends the queue's hold on the fragment's memory (native ingest), if it took one. */
  release: (() => void) | undefined;
}

export interface SubscriberStats {
  kind: SubscriberKind;
  delivered: number;
  dropped: number;
  skips: number;
  queuedBytes: number;
}

export class SubscriberQueue {
  readonly #opts: SubscriberOptions;
  #items: Queued[] = [];
  #queuedBytes = 0;
  #pumping = false;
  #skipping = false;
  #closed = false;
  #delivered = 0;
  #dropped = 0;
  #skips = 0;
  #idle: Array<() => void> = [];

  constructor(opts: SubscriberOptions) {
    this.#opts = opts;
  }

  get kind(): SubscriberKind {
    return this.#opts.kind;
  }

  get stats(): SubscriberStats {
    return { kind: this.#opts.kind, delivered: this.#delivered, dropped: this.#dropped, skips: this.#skips, queuedBytes: this.#queuedBytes };
  }

  /** Called by the hub; returns at once. */
  offer(item: StreamItem): void {
    if (this.#closed) return;
    if (item.type === 'fragment') {
      if (this.#skipping && !item.fragment.keyframe) {
        this.#dropped++;
        return;
      }
      this.#skipping = false;
      if (this.#queuedBytes + itemBytes(item) > this.#opts.maxQueuedBytes && this.#queuedBytes > 0) {
        this.#dropBacklog();
        if (!item.fragment.keyframe) {
          this.#skipping = true;
          this.#dropped++;
          return;
        }
      }
    } else if (item.type === 'init') {
      this.#skipping = false;
    }
    this.#items.push({ item, release: this.#leaseHold(item) });
    this.#queuedBytes += itemBytes(item);
    if (!this.#pumping) this.#pump();
  }

  /** Resolves when everything queued so far has been handled. */
  drained(): Promise<void> {
    if (!this.#pumping && this.#items.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }

  close(): void {
    this.#closed = true;
  }

  #leaseHold(item: StreamItem): (() => void) | undefined {
    const lease = item.type === 'fragment' ? item.fragment.lease : undefined;
    if (lease === undefined) return undefined;
    if (this.#opts.handlerHoldsLeases === true) return lease.hold();
    lease.keepForever();
    return undefined;
  }

  #dropBacklog(): void {
    const kept: Queued[] = [];
    for (const queued of this.#items) {
      if (queued.item.type !== 'fragment') {
        kept.push(queued);
        continue;
      }
      this.#dropped++;
      queued.release?.();
    }
    this.#items = kept;
    this.#queuedBytes = kept.reduce((n, q) => n + itemBytes(q.item), 0);
    this.#skips++;
  }

  /**
   * Hands the queued items over in order. A handler that finishes synchronously (the segment writer appending to its
   * batch, 25 times a second per camera) costs no promise; one that returns a promise is awaited before the next item.
   */
  #pump(): void {
    this.#pumping = true;
    let queued: Queued | undefined;
    while ((queued = this.#items.shift()) !== undefined) {
      this.#queuedBytes -= itemBytes(queued.item);
      let pending: Promise<void> | void;
      try {
        pending = this.#opts.handle(queued.item);
      } catch (err) {
        queued.release?.();
        this.#opts.onError?.(err);
        continue;
      }
      if (pending !== undefined) {
        void this.#awaitThenPump(pending, queued.release);
        return;
      }
      queued.release?.();
      this.#delivered++;
    }
    this.#idleAgain();
  }

  async #awaitThenPump(pending: Promise<void>, release: (() => void) | undefined): Promise<void> {
    try {
      await pending;
      this.#delivered++;
    } catch (err) {
      this.#opts.onError?.(err);
    } finally {
      release?.();
    }
    this.#pump();
  }

  #idleAgain(): void {
    this.#pumping = false;
    const waiters = this.#idle;
    this.#idle = [];
    for (const w of waiters) w();
  }
}
