// Per-camera fan-out: one ingest feeds the recorder and every viewer through their own bounded queues.
import type { InitSegment, MediaFragment } from '../media/fmp4-types.js';
import type { StreamEndReason, StreamItem } from './stream-item.js';
import { SubscriberQueue, type SubscriberOptions, type SubscriberStats } from './subscriber-queue.js';

export interface Subscription {
  readonly stats: SubscriberStats;
  drained(): Promise<void>;
  unsubscribe(): void;
}

const GOP_CACHE_MAX_BYTES = 32 * 1024 * 1024;

export class StreamHub {
  readonly cameraId: string;
  readonly #subscribers = new Set<SubscriberQueue>();
  #init: InitSegment | undefined;
  #gop: MediaFragment[] = [];
  #gopBytes = 0;
  /** The GOP cache's holds on its fragments' memory (native ingest reuses it once nobody holds it). */
  #gopHolds: Array<() => void> = [];
  #streaming = false;
  #sawKeyframe = false;
  #lastFragmentAt: number | undefined;
  #fragments = 0;
  #bytes = 0;
  #liveViewers = 0;
  #beforeLiveJoin: (() => void) | undefined;
  /** Drops counted for subscribers that have since gone, by kind. */
  readonly #retiredDrops = { recording: 0, live: 0 };

  constructor(cameraId: string, private readonly now: () => number = Date.now) {
    this.cameraId = cameraId;
  }

  get init(): InitSegment | undefined {
    return this.#streaming ? this.#init : undefined;
  }

  get streaming(): boolean {
    return this.#streaming;
  }

  /** Live subscribers now (viewers, snapshots of the stream…), as opposed to the recording. */
  get liveViewers(): number {
    return this.#liveViewers;
  }

  get lastFragmentAt(): number | undefined {
    return this.#lastFragmentAt;
  }

  get counters(): { fragments: number; bytes: number; dropped: { recording: number; live: number }; viewers: number } {
    const dropped = { ...this.#retiredDrops };
    let viewers = 0;
    for (const s of this.#subscribers) {
      dropped[s.kind] += s.stats.dropped;
      if (s.kind === 'live') viewers++;
    }
    return { fragments: this.#fragments, bytes: this.#bytes, dropped, viewers };
  }

  /**
   * Called when a live subscriber arrives, before it is given the cache: the producer publishes what it holds back
   * (native ingest groups pictures while nobody watches), so the new viewer starts at the newest picture.
   */
  beforeLiveJoin(hook: (() => void) | undefined): void {
    this.#beforeLiveJoin = hook;
  }

  /** A new subscriber first gets the init segment and the fragments since the last keyframe. */
  subscribe(opts: SubscriberOptions): Subscription {
    const queue = new SubscriberQueue(opts);
    if (queue.kind === 'live') {
      this.#liveViewers++;
      // Before the queue joins: what the hook publishes reaches the new viewer through the cache, in order.
      this.#beforeLiveJoin?.();
    }
    this.#subscribers.add(queue);
    if (this.#streaming && this.#init !== undefined) {
      queue.offer({ type: 'init', init: this.#init });
      for (const fragment of this.#gop) queue.offer({ type: 'fragment', fragment, receivedAt: this.now() });
    }
    return {
      get stats() {
        return queue.stats;
      },
      drained: () => queue.drained(),
      unsubscribe: () => {
        if (!this.#subscribers.delete(queue)) return;
        if (queue.kind === 'live') this.#liveViewers--;
        this.#retiredDrops[queue.kind] += queue.stats.dropped;
        queue.close();
      },
    };
  }

  publishInit(init: InitSegment): void {
    this.#init = init;
    this.#streaming = true;
    this.#sawKeyframe = false;
    this.#clearGop();
    this.#broadcast({ type: 'init', init });
  }

  publishFragment(fragment: MediaFragment): void {
    if (!this.#streaming) return;
    const receivedAt = this.now();
    this.#lastFragmentAt = receivedAt;
    this.#fragments++;
    this.#bytes += fragment.data.length;
    if (fragment.keyframe) {
      this.#clearGop();
      this.#sawKeyframe = true;
    }
    // The cache always starts on a keyframe: before the stream's first one there is nothing to replay.
    if (this.#sawKeyframe && this.#gopBytes + fragment.data.length <= GOP_CACHE_MAX_BYTES) {
      this.#gop.push(fragment);
      this.#gopBytes += fragment.data.length;
      if (fragment.lease !== undefined) this.#gopHolds.push(fragment.lease.hold());
    }
    this.#broadcast({ type: 'fragment', fragment, receivedAt });
  }

  /** The stream stopped (silence, ffmpeg exit, stop); subscribers close what they hold. */
  end(reason: StreamEndReason): void {
    if (!this.#streaming) return;
    this.#streaming = false;
    this.#clearGop();
    this.#broadcast({ type: 'end', reason });
  }

  #clearGop(): void {
    this.#gop = [];
    this.#gopBytes = 0;
    const holds = this.#gopHolds;
    this.#gopHolds = [];
    for (const release of holds) release();
  }

  #broadcast(item: StreamItem): void {
    for (const s of this.#subscribers) s.offer(item);
  }
}
