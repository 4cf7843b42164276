// Pictures held back for one multi-picture fragment: copies of their NAL units in one buffer reused batch after batch.
import type { MuxSample } from '../media/fmp4-muxer-types.js';
import type { PicturePlacement } from './video-timeline.js';

const INITIAL_BYTES = 64 * 1024;

interface HeldPicture {
  parts: Buffer[];
  placement: PicturePlacement;
  keyframe: boolean;
}

export interface TakenBatch {
  /** The first picture's decode time (90 kHz). */
  baseDecodeTime: number;
  /** Valid until the next add(): build the fragment from them at once. */
  samples: MuxSample[];
  /** When the first picture is to be named by (ms since the epoch), if known. */
  wallClockMs: number | undefined;
}

/**
 * A depacketizer's NAL units are views of its scratch memory, valid only while it hands the picture over; a picture
 * held for a later fragment is copied here. The buffer is reused from its start after every take(), so holding costs
 * no allocation once it has grown to the largest picture's size.
 */
export class PictureBatch {
  #buffer = Buffer.allocUnsafeSlow(INITIAL_BYTES);
  #used = 0;
  #pictures: HeldPicture[] = [];
  #wallClockMs: number | undefined;

  get size(): number {
    return this.#pictures.length;
  }

  /** The first held picture's decode time, or undefined when empty. */
  get firstDecodeTime(): number | undefined {
    return this.#pictures[0]?.placement.decodeTime;
  }

  /**
   * Holds a copy of the picture; false (nothing held) when it does not fit beside the pictures already held: send those
   * first. The buffer grows only for a picture bigger than it on its own, so it stays the size of the largest picture
   * (or INITIAL_BYTES) rather than of a whole batch.
   */
  add(nalus: readonly Buffer[], keyframe: boolean, placement: PicturePlacement, wallClockMs: number | undefined): boolean {
    let bytes = 0;
    for (const nalu of nalus) bytes += nalu.length;
    if (this.#used + bytes > this.#buffer.length) {
      if (this.#pictures.length > 0) return false;
      this.#buffer = Buffer.allocUnsafeSlow(Math.max(this.#buffer.length * 2, bytes));
      this.#used = 0;
    }
    if (this.#pictures.length === 0) this.#wallClockMs = wallClockMs;
    const parts: Buffer[] = [];
    for (const nalu of nalus) {
      nalu.copy(this.#buffer, this.#used);
      parts.push(this.#buffer.subarray(this.#used, this.#used + nalu.length));
      this.#used += nalu.length;
    }
    this.#pictures.push({ parts, placement, keyframe });
    return true;
  }

  /** Empties the batch: each picture with the duration and composition offset the timeline gave it. */
  take(): TakenBatch | undefined {
    const pictures = this.#pictures;
    const first = pictures[0];
    if (first === undefined) return undefined;
    this.#pictures = [];
    this.#used = 0;
    const samples = pictures.map(({ parts, placement, keyframe }): MuxSample => ({ parts, duration: placement.duration, keyframe, compositionOffset: placement.compositionOffset }));
    return { baseDecodeTime: first.placement.decodeTime, samples, wallClockMs: this.#wallClockMs };
  }
}
