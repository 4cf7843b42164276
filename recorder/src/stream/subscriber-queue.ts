// One subscriber's bounded queue: delivers items in order, never blocks the hub, skips to a keyframe when full.
import { itemBytes, type StreamItem, type SubscriberKind } from './stream-item.js';

export interface SubscriberOptions {
  kind: SubscriberKind;
  /** Queued bytes past which the backlog is dropped and delivery resumes at the next keyframe. */
  maxQueuedBytes: number;
  handle(item: StreamItem): Promise<void> | void;
  onError?(err: unknown): void;
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
  #items: StreamItem[] = [];
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
    this.#items.push(item);
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

  #dropBacklog(): void {
    const kept: StreamItem[] = [];
    for (const queued of this.#items) {
      if (queued.type === 'fragment') this.#dropped++;
      else kept.push(queued);
    }
    this.#items = kept;
    this.#queuedBytes = kept.reduce((n, i) => n + itemBytes(i), 0);
    this.#skips++;
  }

  /**
   * Hands the queued items over in order. A handler that finishes synchronously (the segment writer appending to its
   * batch, 25 times a second per camera) costs no promise; one that returns a promise is awaited before the next item.
   */
  #pump(): void {
    this.#pumping = true;
    let item: StreamItem | undefined;
    while ((item = this.#items.shift()) !== undefined) {
      this.#queuedBytes -= itemBytes(item);
      let pending: Promise<void> | void;
      try {
        pending = this.#opts.handle(item);
      } catch (err) {
        this.#opts.onError?.(err);
        continue;
      }
      if (pending !== undefined) {
        void this.#awaitThenPump(pending);
        return;
      }
      this.#delivered++;
    }
    this.#idleAgain();
  }

  async #awaitThenPump(pending: Promise<void>): Promise<void> {
    try {
      await pending;
      this.#delivered++;
    } catch (err) {
      this.#opts.onError?.(err);
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
