// H.264 picture order counts (ITU-T H.264 8.2.1, types 0, 1 and 2) from each picture's first slice header and the SPS/PPS in force.
import { BitReader, BitstreamError } from './bit-reader.js';
import { parseH264Sps, type H264PictureOrderFields, type H264Sps } from './h264-sps.js';
import { ParameterSetsInForce, pocMsb, type PictureOrder } from './picture-order.js';

/** A slice header's fields up to the picture order count fit in its first bytes; only those are unescaped. */
const SLICE_HEADER_BYTES = 48;
const NAL_IDR = 5;

/** The PPS fields a slice header's picture order count depends on. */
interface H264PpsFields {
  spsId: number;
  bottomFieldPicOrderPresent: boolean;
}

function parsePps(nal: Buffer): { ppsId: number; fields: H264PpsFields } {
  const r = new BitReader(nal.subarray(0, SLICE_HEADER_BYTES), 1);
  const ppsId = r.ue();
  const spsId = r.ue();
  r.skip(1); // entropy_coding_mode_flag
  return { ppsId, fields: { spsId, bottomFieldPicOrderPresent: r.flag() } };
}

interface SliceOrderFields {
  idr: boolean;
  reference: boolean;
  frameNum: number;
  field: boolean;
  bottomField: boolean;
  pocLsb: number;
  deltaBottom: number;
  delta0: number;
  delta1: number;
}

/**
 * Computes each picture's POC in decoding order. Parameter sets are parsed once per change (`setParameterSets` with the
 * same buffers costs nothing). A picture whose slice header cannot be read gets undefined, and the state is kept as it
 * was. Not modelled: memory_management_control_operation 5 (a POC reset inside the dec_ref_pic_marking, which sits
 * past the slice's prediction tables); a stream using it gets POCs off by a constant until its next IDR.
 */
export class H264PictureOrderCounter {
  readonly #parameterSets = new ParameterSetsInForce<H264Sps, H264PpsFields>(parseH264Sps, parsePps);
  #prevPocMsb = 0;
  #prevPocLsb = 0;
  #prevFrameNum = 0;
  #prevFrameNumOffset = 0;

  /** The SPS and PPSs in force (raw NAL units, header byte included). */
  setParameterSets(sps: Buffer, ppsList: readonly Buffer[]): void {
    this.#parameterSets.update(sps, ppsList);
  }

  /** The order of the picture whose NAL units (no start codes) are `nalus`; undefined when it cannot be told. */
  next(nalus: readonly Buffer[]): PictureOrder | undefined {
    const sps = this.#parameterSets.sps;
    if (sps === undefined) return undefined;
    const slice = nalus.find((n) => {
      const type = (n[0] ?? 0) & 0x1f;
      return type === 1 || type === NAL_IDR;
    });
    if (slice === undefined) return undefined;
    let fields: SliceOrderFields;
    try {
      const read = this.#readSlice(slice, sps);
      if (read === undefined) return undefined;
      fields = read;
    } catch (err) {
      if (err instanceof BitstreamError) return undefined;
      throw err;
    }
    return this.#compute(fields, sps.pictureOrder);
  }

  #readSlice(nal: Buffer, sps: H264Sps): SliceOrderFields | undefined {
    const order = sps.pictureOrder;
    const idr = ((nal[0] ?? 0) & 0x1f) === NAL_IDR;
    const reference = ((nal[0] ?? 0) & 0x60) !== 0;
    const r = new BitReader(nal.subarray(0, SLICE_HEADER_BYTES), 1);
    r.ue(); // first_mb_in_slice
    r.ue(); // slice_type
    const pps = this.#parameterSets.pps(r.ue());
    if (pps === undefined) return undefined;
    if (sps.separateColourPlane) r.skip(2); // colour_plane_id
    const frameNum = r.u(order.log2MaxFrameNum);
    let field = false;
    let bottomField = false;
    if (!sps.frameMbsOnly) {
      field = r.flag();
      if (field) bottomField = r.flag();
    }
    if (idr) r.ue(); // idr_pic_id
    const out: SliceOrderFields = { idr, reference, frameNum, field, bottomField, pocLsb: 0, deltaBottom: 0, delta0: 0, delta1: 0 };
    if (order.pocType === 0) {
      out.pocLsb = r.u(order.log2MaxPocLsb);
      if (pps.bottomFieldPicOrderPresent && !field) out.deltaBottom = r.se();
    } else if (order.pocType === 1 && !order.deltaPicOrderAlwaysZero) {
      out.delta0 = r.se();
      if (pps.bottomFieldPicOrderPresent && !field) out.delta1 = r.se();
    }
    return out;
  }

  #compute(s: SliceOrderFields, order: H264PictureOrderFields): PictureOrder {
    if (order.pocType === 0) {
      if (s.idr) {
        this.#prevPocMsb = 0;
        this.#prevPocLsb = 0;
      }
      const maxLsb = 2 ** order.log2MaxPocLsb;
      const msb = pocMsb(this.#prevPocMsb, this.#prevPocLsb, s.pocLsb, maxLsb);
      const top = msb + s.pocLsb;
      const poc = s.field ? top : Math.min(top, top + s.deltaBottom);
      // The next picture's reference is the latest reference picture (8.2.1.1).
      if (s.reference) {
        this.#prevPocMsb = msb;
        this.#prevPocLsb = s.pocLsb;
      }
      return { poc, reset: s.idr };
    }
    const maxFrameNum = 2 ** order.log2MaxFrameNum;
    let frameNumOffset = 0;
    if (!s.idr) frameNumOffset = this.#prevFrameNum > s.frameNum ? this.#prevFrameNumOffset + maxFrameNum : this.#prevFrameNumOffset;
    this.#prevFrameNum = s.frameNum;
    this.#prevFrameNumOffset = frameNumOffset;
    if (order.pocType === 2) {
      if (s.idr) return { poc: 0, reset: true };
      return { poc: 2 * (frameNumOffset + s.frameNum) - (s.reference ? 0 : 1), reset: false };
    }
    // Type 1: the POC expected from the frame number and the cycle of reference-frame offsets, plus the slice's deltas.
    const cycle = order.offsetForRefFrame;
    let absFrameNum = cycle.length > 0 ? frameNumOffset + s.frameNum : 0;
    if (!s.reference && absFrameNum > 0) absFrameNum--;
    let expected = 0;
    if (absFrameNum > 0) {
      const deltaPerCycle = cycle.reduce((sum, v) => sum + v, 0);
      const cycleCount = Math.floor((absFrameNum - 1) / cycle.length);
      const inCycle = (absFrameNum - 1) % cycle.length;
      expected = cycleCount * deltaPerCycle;
      for (let i = 0; i <= inCycle; i++) expected += cycle[i] as number;
    }
    if (!s.reference) expected += order.offsetForNonRefPic;
    const top = expected + s.delta0;
    const bottom = top + order.offsetForTopToBottomField + s.delta1;
    const poc = s.field ? (s.bottomField ? expected + order.offsetForTopToBottomField + s.delta0 : top) : Math.min(top, bottom);
    return { poc, reset: s.idr };
  }
}
