// What a video stream's parameter sets and slice headers say about presentation order: reorder depth, picture interval, each POC.
import { BitstreamError } from '../media/bit-reader.js';
import { H264PictureOrderCounter } from '../media/h264-picture-order.js';
import { parseH264Sps } from '../media/h264-sps.js';
import { H265PictureOrderCounter } from '../media/h265-picture-order.js';
import type { PictureOrder } from '../media/picture-order.js';
import { parseH265Sps } from '../media/h265-sps.js';
import type { ParameterSets } from '../rtp/access-unit.js';

const VIDEO_CLOCK = 90_000;

/** The ordering facts of a sequence parameter set. */
export interface SequenceOrdering {
  /** Pictures that may be decoded before a picture and presented after it; undefined when the SPS does not say. */
  reorderDepth: number | undefined;
  /** The picture interval (90 kHz) the VUI timing announces, when it does and it is plausible (1–120 fps). */
  interval: number | undefined;
}

/** Reads the ordering facts of an SPS; a parameter set that cannot be parsed says nothing. */
export function sequenceOrdering(ps: ParameterSets): SequenceOrdering {
  try {
    if (ps.codec === 'h265') return { reorderDepth: parseH265Sps(ps.sps).maxNumReorderPics, interval: undefined };
    const sps = parseH264Sps(ps.sps);
    const timing = sps.timing;
    // A frame lasts two ticks of the VUI clock (one per field) in a frame-coded stream.
    const interval = timing === undefined ? undefined : (VIDEO_CLOCK * 2 * timing.numUnitsInTick) / timing.timeScale;
    return { reorderDepth: sps.maxNumReorderFrames, interval: interval !== undefined && interval >= 750 && interval <= VIDEO_CLOCK ? Math.round(interval) : undefined };
  } catch (err) {
    if (err instanceof BitstreamError) return { reorderDepth: undefined, interval: undefined };
    throw err;
  }
}

/** Each picture's POC, from the slice header and the parameter sets in force (the codec's counter, made on first use). */
export class PictureOrderReader {
  #h264: H264PictureOrderCounter | undefined;
  #h265: H265PictureOrderCounter | undefined;

  /** The order of a picture decoded against `ps`; undefined when its slice header cannot be read. */
  orderOf(nalus: readonly Buffer[], ps: ParameterSets): PictureOrder | undefined {
    if (ps.codec === 'h265') {
      this.#h265 ??= new H265PictureOrderCounter();
      this.#h265.setParameterSets(ps.sps, ps.pps);
      return this.#h265.next(nalus);
    }
    this.#h264 ??= new H264PictureOrderCounter();
    this.#h264.setParameterSets(ps.sps, ps.pps);
    return this.#h264.next(nalus);
  }
}
