// H.264 sequence parameter set parsing (ITU-T H.264 7.3.2.1.1, E.1.1) and the avcC record the mp4 sample entry carries.
import { BitReader, BitstreamError } from './bit-reader.js';

export interface H264Sps {
  profileIdc: number;
  /** constraint_set0..5 flags and the two reserved bits, as the byte after profile_idc. */
  constraintFlags: number;
  levelIdc: number;
  spsId: number;
  /** 0 monochrome, 1 4:2:0, 2 4:2:2, 3 4:4:4. */
  chromaFormatIdc: number;
  separateColourPlane: boolean;
  bitDepthLuma: number;
  bitDepthChroma: number;
  frameMbsOnly: boolean;
  /** Displayed size: coded macroblocks minus the frame cropping. */
  width: number;
  height: number;
  /** Sample aspect ratio from the VUI; undefined when absent or unspecified. */
  sar?: { width: number; height: number };
  /** VUI timing; a frame rate is time_scale / (2 * num_units_in_tick) for frame-coded streams. */
  timing?: { numUnitsInTick: number; timeScale: number; fixedFrameRate: boolean };
  /**
   * Frames that may precede a frame in decoding order and follow it in output order: from the VUI
   * bitstream restriction, else 0 where the profile rules B-frames out, else undefined (unknown).
   */
  maxNumReorderFrames?: number;
  /** What a slice header's picture order count needs (7.4.2.1.1, 8.2.1). */
  pictureOrder: H264PictureOrderFields;
}

/** The SPS fields a slice header's frame_num and picture order count are read and computed with. */
export interface H264PictureOrderFields {
  log2MaxFrameNum: number;
  /** pic_order_cnt_type: 0 (an lsb in every slice), 1 (expected from frame_num and cycle offsets), 2 (output order = decoding order). */
  pocType: 0 | 1 | 2;
  /** Type 0 only. */
  log2MaxPocLsb: number;
  /** Type 1 only. */
  deltaPicOrderAlwaysZero: boolean;
  offsetForNonRefPic: number;
  offsetForTopToBottomField: number;
  offsetForRefFrame: number[];
}

/** profile_idc values whose SPS carries chroma_format_idc, bit depths and scaling matrices. */
const HIGH_PROFILES = new Set([100, 110, 122, 244, 44, 83, 86, 118, 128, 138, 139, 134, 135]);
/** Profiles whose avcC carries the chroma/bit-depth extension (ISO/IEC 14496-15 5.3.3.1.2; 244 as ffmpeg writes it). */
const AVCC_EXTENSION_PROFILES = new Set([100, 110, 122, 144, 244]);
/** Table E-1 sample aspect ratios, indexed by aspect_ratio_idc. */
const SAR_TABLE: ReadonlyArray<readonly [number, number]> = [
  [0, 0], [1, 1], [12, 11], [10, 11], [16, 11], [40, 33], [24, 11], [20, 11], [32, 11],
  [80, 33], [18, 11], [15, 11], [64, 33], [160, 99], [4, 3], [3, 2], [2, 1],
];
const EXTENDED_SAR = 255;

/** Parses an SPS NAL unit (header byte included, no start code). Throws BitstreamError when malformed. */
export function parseH264Sps(nal: Buffer): H264Sps {
  if (nal.length < 4 || ((nal[0] ?? 0) & 0x1f) !== 7) throw new BitstreamError('not an H.264 SPS NAL unit');
  const r = new BitReader(nal, 1);
  const profileIdc = r.u(8);
  const constraintFlags = r.u(8);
  const levelIdc = r.u(8);
  const spsId = r.ue();
  let chromaFormatIdc = 1;
  let separateColourPlane = false;
  let bitDepthLuma = 8;
  let bitDepthChroma = 8;
  if (HIGH_PROFILES.has(profileIdc)) {
    chromaFormatIdc = r.ue();
    if (chromaFormatIdc > 3) throw new BitstreamError(`chroma_format_idc ${chromaFormatIdc}`);
    if (chromaFormatIdc === 3) separateColourPlane = r.flag();
    bitDepthLuma = 8 + r.ue();
    bitDepthChroma = 8 + r.ue();
    if (bitDepthLuma > 14 || bitDepthChroma > 14) throw new BitstreamError(`bit depth ${bitDepthLuma}/${bitDepthChroma}`);
    r.skip(1); // qpprime_y_zero_transform_bypass_flag
    if (r.flag()) {
      const lists = chromaFormatIdc === 3 ? 12 : 8;
      for (let i = 0; i < lists; i++) {
        if (r.flag()) skipScalingList(r, i < 6 ? 16 : 64);
      }
    }
  }
  const log2MaxFrameNum = r.ue() + 4;
  if (log2MaxFrameNum > 16) throw new BitstreamError(`log2_max_frame_num_minus4 ${log2MaxFrameNum - 4}`);
  const pocType = r.ue();
  if (pocType > 2) throw new BitstreamError(`pic_order_cnt_type ${pocType}`);
  const pictureOrder: H264PictureOrderFields = {
    log2MaxFrameNum, pocType: pocType as 0 | 1 | 2, log2MaxPocLsb: 0,
    deltaPicOrderAlwaysZero: false, offsetForNonRefPic: 0, offsetForTopToBottomField: 0, offsetForRefFrame: [],
  };
  if (pocType === 0) {
    pictureOrder.log2MaxPocLsb = r.ue() + 4;
    if (pictureOrder.log2MaxPocLsb > 16) throw new BitstreamError(`log2_max_pic_order_cnt_lsb_minus4 ${pictureOrder.log2MaxPocLsb - 4}`);
  } else if (pocType === 1) {
    pictureOrder.deltaPicOrderAlwaysZero = r.flag();
    pictureOrder.offsetForNonRefPic = r.se();
    pictureOrder.offsetForTopToBottomField = r.se();
    const cycle = r.ue();
    if (cycle > 255) throw new BitstreamError(`num_ref_frames_in_pic_order_cnt_cycle ${cycle}`);
    for (let i = 0; i < cycle; i++) pictureOrder.offsetForRefFrame.push(r.se());
  }
  const maxNumRefFrames = r.ue();
  r.skip(1); // gaps_in_frame_num_value_allowed_flag
  const widthMbs = r.ue() + 1;
  const heightMapUnits = r.ue() + 1;
  const frameMbsOnly = r.flag();
  if (!frameMbsOnly) r.skip(1); // mb_adaptive_frame_field_flag
  r.skip(1); // direct_8x8_inference_flag
  let crop = { left: 0, right: 0, top: 0, bottom: 0 };
  if (r.flag()) crop = { left: r.ue(), right: r.ue(), top: r.ue(), bottom: r.ue() };
  // Crop offsets count chroma samples (Table 6-1); monochrome and separate planes count luma samples.
  const chromaArrayType = separateColourPlane ? 0 : chromaFormatIdc;
  const subWidthC = chromaArrayType === 1 || chromaArrayType === 2 ? 2 : 1;
  const subHeightC = chromaArrayType === 1 ? 2 : 1;
  const fieldFactor = frameMbsOnly ? 1 : 2;
  const width = widthMbs * 16 - subWidthC * (crop.left + crop.right);
  const height = fieldFactor * heightMapUnits * 16 - subHeightC * fieldFactor * (crop.top + crop.bottom);
  if (width <= 0 || height <= 0) throw new BitstreamError(`SPS cropping leaves ${width}x${height}`);
  const sps: H264Sps = {
    profileIdc, constraintFlags, levelIdc, spsId, chromaFormatIdc, separateColourPlane,
    bitDepthLuma, bitDepthChroma, frameMbsOnly, width, height, pictureOrder,
  };
  if (r.flag()) {
    // The VUI is optional metadata: a camera that writes a short or odd one still gets its stream muxed.
    try {
      parseVui(r, sps);
    } catch (err) {
      if (!(err instanceof BitstreamError)) throw err;
    }
  }
  if (sps.maxNumReorderFrames === undefined && !canReorder(profileIdc, constraintFlags, maxNumRefFrames)) sps.maxNumReorderFrames = 0;
  return sps;
}

/** Whether the profile allows B-frames or reordering at all (A.2: Baseline has no B slices; intra profiles and no references cannot reorder). */
function canReorder(profileIdc: number, constraintFlags: number, maxNumRefFrames: number): boolean {
  if (maxNumRefFrames === 0) return false;
  if (profileIdc === 66) return false;
  const constraintSet3 = (constraintFlags & 0x10) !== 0;
  return !(constraintSet3 && [44, 86, 100, 110, 122, 244].includes(profileIdc));
}

function skipScalingList(r: BitReader, size: number): void {
  let last = 8;
  let next = 8;
  for (let j = 0; j < size; j++) {
    if (next !== 0) {
      next = (last + r.se() + 256) % 256;
    }
    // next === 0 means the rest of the list repeats `last`: nothing more is coded.
    if (next === 0) return;
    last = next;
  }
}

function parseVui(r: BitReader, sps: H264Sps): void {
  if (r.flag()) {
    const idc = r.u(8);
    const [w, h] = idc === EXTENDED_SAR ? [r.u(16), r.u(16)] : (SAR_TABLE[idc] ?? [0, 0]);
    if (w > 0 && h > 0) sps.sar = { width: w, height: h };
  }
  if (r.flag()) r.skip(1); // overscan_info_present_flag -> overscan_appropriate_flag
  if (r.flag()) {
    r.skip(3 + 1); // video_format, video_full_range_flag
    if (r.flag()) r.skip(24); // colour_primaries, transfer_characteristics, matrix_coefficients
  }
  if (r.flag()) {
    r.ue(); // chroma_sample_loc_type_top_field
    r.ue(); // chroma_sample_loc_type_bottom_field
  }
  if (r.flag()) {
    const numUnitsInTick = r.u(32);
    const timeScale = r.u(32);
    const fixedFrameRate = r.flag();
    if (numUnitsInTick > 0 && timeScale > 0) sps.timing = { numUnitsInTick, timeScale, fixedFrameRate };
  }
  const nalHrd = r.flag();
  if (nalHrd) skipHrd(r);
  const vclHrd = r.flag();
  if (vclHrd) skipHrd(r);
  if (nalHrd || vclHrd) r.skip(1); // low_delay_hrd_flag
  r.skip(1); // pic_struct_present_flag
  if (r.flag()) {
    r.skip(1); // motion_vectors_over_pic_boundaries_flag
    r.ue(); // max_bytes_per_pic_denom
    r.ue(); // max_bits_per_mb_denom
    r.ue(); // log2_max_mv_length_horizontal
    r.ue(); // log2_max_mv_length_vertical
    sps.maxNumReorderFrames = r.ue();
    r.ue(); // max_dec_frame_buffering
  }
}

function skipHrd(r: BitReader): void {
  const cpbCount = r.ue() + 1;
  if (cpbCount > 32) throw new BitstreamError(`cpb_cnt_minus1 ${cpbCount - 1}`);
  r.skip(8); // bit_rate_scale, cpb_size_scale
  for (let i = 0; i < cpbCount; i++) {
    r.ue(); // bit_rate_value_minus1
    r.ue(); // cpb_size_value_minus1
    r.skip(1); // cbr_flag
  }
  r.skip(20); // four 5-bit delay/length fields
}

/**
 * AVCDecoderConfigurationRecord (ISO/IEC 14496-15 5.3.3.1) for NAL units with 4-byte length prefixes.
 * The profile/compatibility/level bytes come from the SPS itself so the codec string matches the stream.
 */
export function buildAvcC(sps: Buffer, ppsList: readonly Buffer[], parsed: H264Sps = parseH264Sps(sps)): Buffer {
  if (ppsList.length === 0 || ppsList.length > 255) throw new RangeError(`avcC needs 1..255 PPS, got ${ppsList.length}`);
  if (sps.length > 0xffff) throw new RangeError('SPS longer than 65535 bytes');
  const extension = AVCC_EXTENSION_PROFILES.has(parsed.profileIdc);
  let size = 6 + 2 + sps.length + 1 + (extension ? 4 : 0);
  for (const pps of ppsList) {
    if (pps.length > 0xffff) throw new RangeError('PPS longer than 65535 bytes');
    size += 2 + pps.length;
  }
  const out = Buffer.alloc(size);
  let off = out.writeUInt8(1, 0); // configurationVersion
  off = out.writeUInt8(parsed.profileIdc, off);
  off = out.writeUInt8(parsed.constraintFlags, off);
  off = out.writeUInt8(parsed.levelIdc, off);
  off = out.writeUInt8(0xfc | 3, off); // reserved 6 bits, lengthSizeMinusOne = 3
  off = out.writeUInt8(0xe0 | 1, off); // reserved 3 bits, numOfSequenceParameterSets = 1
  off = out.writeUInt16BE(sps.length, off);
  off += sps.copy(out, off);
  off = out.writeUInt8(ppsList.length, off);
  for (const pps of ppsList) {
    off = out.writeUInt16BE(pps.length, off);
    off += pps.copy(out, off);
  }
  if (extension) {
    off = out.writeUInt8(0xfc | parsed.chromaFormatIdc, off);
    off = out.writeUInt8(0xf8 | (parsed.bitDepthLuma - 8), off);
    off = out.writeUInt8(0xf8 | (parsed.bitDepthChroma - 8), off);
    out.writeUInt8(0, off); // numOfSequenceParameterSetExt
  }
  return out;
}
