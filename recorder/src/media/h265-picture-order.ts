// H.265 picture order counts (ITU-T H.265 8.3.1) from each picture's first slice segment header and the SPS/PPS in force.
import { BitReader, BitstreamError } from './bit-reader.js';
import { parseH265Sps, type H265Sps } from './h265-sps.js';
import { ParameterSetsInForce, pocMsb, type PictureOrder } from './picture-order.js';

/** A slice segment header's fields up to slice_pic_order_cnt_lsb fit in its first bytes; only those are unescaped. */
const SLICE_HEADER_BYTES = 48;
const BLA_W_LP = 16;
const IDR_W_RADL = 19;
const IDR_N_LP = 20;
const CRA = 21;
const RSV_IRAP_23 = 23;

interface H265PpsFields {
  outputFlagPresent: boolean;
  extraSliceHeaderBits: number;
}

function nalType(nal: Buffer): number {
  return ((nal[0] ?? 0) >> 1) & 0x3f;
}

function parsePps(nal: Buffer): { ppsId: number; fields: H265PpsFields } {
  const r = new BitReader(nal.subarray(0, SLICE_HEADER_BYTES), 2);
  const ppsId = r.ue();
  r.ue(); // pps_seq_parameter_set_id
  r.skip(1); // dependent_slice_segments_enabled_flag (only slices after a picture's first have the flag it enables)
  const outputFlagPresent = r.flag();
  return { ppsId, fields: { outputFlagPresent, extraSliceHeaderBits: r.u(3) } };
}

/**
 * Computes each picture's POC in decoding order. An IDR or BLA picture, and a CRA that starts the stream, start a new
 * coded video sequence (`reset`); other pictures take their POC's high part from the previous picture of temporal
 * layer 0 that is not a leading or sub-layer non-reference picture (prevTid0Pic). A picture whose slice header cannot
 * be read gets undefined.
 */
export class H265PictureOrderCounter {
  readonly #parameterSets = new ParameterSetsInForce<H265Sps, H265PpsFields>(parseH265Sps, parsePps);
  #prevTid0Poc: number | undefined;

  /** The SPS and PPSs in force (raw NAL units, header bytes included). */
  setParameterSets(sps: Buffer, ppsList: readonly Buffer[]): void {
    this.#parameterSets.update(sps, ppsList);
  }

  /** The order of the picture whose NAL units (no start codes) are `nalus`; undefined when it cannot be told. */
  next(nalus: readonly Buffer[]): PictureOrder | undefined {
    const sps = this.#parameterSets.sps;
    if (sps === undefined) return undefined;
    const bits = sps.log2MaxPocLsb;
    const slice = nalus.find((n) => nalType(n) <= 31 && ((n[2] ?? 0) & 0x80) !== 0);
    if (slice === undefined) return undefined;
    const type = nalType(slice);
    const temporalId = ((slice[1] ?? 0) & 7) - 1;
    let lsb: number;
    try {
      const read = this.#readLsb(slice, type, sps);
      if (read === undefined) return undefined;
      lsb = read;
    } catch (err) {
      if (err instanceof BitstreamError) return undefined;
      throw err;
    }
    const irap = type >= BLA_W_LP && type <= RSV_IRAP_23;
    // NoRaslOutputFlag: IDR, BLA, and a CRA with nothing before it (the first picture this counter sees).
    const reset = irap && (type !== CRA || this.#prevTid0Poc === undefined);
    let poc: number;
    if (reset) poc = type === IDR_W_RADL || type === IDR_N_LP ? 0 : lsb;
    else {
      const maxLsb = 2 ** bits;
      const prev = this.#prevTid0Poc ?? 0;
      const prevLsb = ((prev % maxLsb) + maxLsb) % maxLsb;
      poc = pocMsb(prev - prevLsb, prevLsb, lsb, maxLsb) + lsb;
    }
    // Sub-layer non-reference pictures (even types up to 14) and leading pictures (RADL 6–7, RASL 8–9) are not prevTid0Pic.
    const subLayerNonReference = type <= 14 && type % 2 === 0;
    if (temporalId === 0 && !subLayerNonReference && !(type >= 6 && type <= 9)) this.#prevTid0Poc = poc;
    return { poc, reset };
  }

  /** slice_pic_order_cnt_lsb of a first slice segment (0 for an IDR, which carries none). */
  #readLsb(nal: Buffer, type: number, sps: H265Sps): number | undefined {
    const r = new BitReader(nal.subarray(0, SLICE_HEADER_BYTES), 2);
    r.skip(1); // first_slice_segment_in_pic_flag (set: the caller picked the first slice segment)
    if (type >= BLA_W_LP && type <= RSV_IRAP_23) r.skip(1); // no_output_of_prior_pics_flag
    const pps = this.#parameterSets.pps(r.ue());
    if (pps === undefined) return undefined;
    r.skip(pps.extraSliceHeaderBits); // slice_reserved_flag[]
    r.ue(); // slice_type
    if (pps.outputFlagPresent) r.skip(1); // pic_output_flag
    if (sps.separateColourPlane) r.skip(2); // colour_plane_id
    if (type === IDR_W_RADL || type === IDR_N_LP) return 0;
    return r.u(sps.log2MaxPocLsb);
  }
}
