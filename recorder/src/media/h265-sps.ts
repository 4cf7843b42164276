// H.265 sequence parameter set parsing (ITU-T H.265 7.3.2.2, 7.3.3) and the hvcC record the mp4 sample entry carries.
import { BitReader, BitstreamError } from './bit-reader.js';

export interface H265ProfileTierLevel {
  profileSpace: number;
  tierFlag: boolean;
  profileIdc: number;
  /** general_profile_compatibility_flag[0..31], flag 0 in the most significant bit (stream order). */
  compatibilityFlags: number;
  /** The 48 bits from general_progressive_source_flag on, as 6 bytes in stream order. */
  constraintFlags: Buffer;
  levelIdc: number;
}

export interface H265Sps {
  vpsId: number;
  maxSubLayers: number;
  temporalIdNesting: boolean;
  profileTierLevel: H265ProfileTierLevel;
  spsId: number;
  /** 0 monochrome, 1 4:2:0, 2 4:2:2, 3 4:4:4. */
  chromaFormatIdc: number;
  separateColourPlane: boolean;
  /** Displayed size: coded luma samples minus the conformance window. */
  width: number;
  height: number;
  bitDepthLuma: number;
  bitDepthChroma: number;
  /** sps_max_num_reorder_pics of the highest sub-layer: 0 means output order is decode order (no B-frame delay). */
  maxNumReorderPics: number;
  /** Bits of slice_pic_order_cnt_lsb in a slice header. */
  log2MaxPocLsb: number;
}

export const H265_NAL_VPS = 32;
export const H265_NAL_SPS = 33;
export const H265_NAL_PPS = 34;

/** The nal_unit_type of an H.265 NAL unit (6 bits after the forbidden bit). */
export function h265NalType(nal: Buffer): number {
  return ((nal[0] ?? 0) >> 1) & 0x3f;
}

/** Parses an SPS NAL unit (2-byte header included, no start code). Throws BitstreamError when malformed. */
export function parseH265Sps(nal: Buffer): H265Sps {
  if (nal.length < 3 || h265NalType(nal) !== H265_NAL_SPS) throw new BitstreamError('not an H.265 SPS NAL unit');
  const r = new BitReader(nal, 2);
  const vpsId = r.u(4);
  const maxSubLayers = r.u(3) + 1;
  if (maxSubLayers > 7) throw new BitstreamError('sps_max_sub_layers_minus1 is 7');
  const temporalIdNesting = r.flag();
  const profileTierLevel = parseProfileTierLevel(r, maxSubLayers);
  const spsId = r.ue();
  const chromaFormatIdc = r.ue();
  if (chromaFormatIdc > 3) throw new BitstreamError(`chroma_format_idc ${chromaFormatIdc}`);
  const separateColourPlane = chromaFormatIdc === 3 ? r.flag() : false;
  const codedWidth = r.ue();
  const codedHeight = r.ue();
  let window = { left: 0, right: 0, top: 0, bottom: 0 };
  if (r.flag()) window = { left: r.ue(), right: r.ue(), top: r.ue(), bottom: r.ue() };
  // Window offsets count chroma samples (Table 6-1); separate colour planes count luma samples.
  const chromaArrayType = separateColourPlane ? 0 : chromaFormatIdc;
  const subWidthC = chromaArrayType === 1 || chromaArrayType === 2 ? 2 : 1;
  const subHeightC = chromaArrayType === 1 ? 2 : 1;
  const width = codedWidth - subWidthC * (window.left + window.right);
  const height = codedHeight - subHeightC * (window.top + window.bottom);
  if (width <= 0 || height <= 0) throw new BitstreamError(`SPS conformance window leaves ${width}x${height}`);
  const bitDepthLuma = 8 + r.ue();
  const bitDepthChroma = 8 + r.ue();
  if (bitDepthLuma > 16 || bitDepthChroma > 16) throw new BitstreamError(`bit depth ${bitDepthLuma}/${bitDepthChroma}`);
  const log2MaxPocLsb = r.ue() + 4;
  if (log2MaxPocLsb > 16) throw new BitstreamError(`log2_max_pic_order_cnt_lsb_minus4 ${log2MaxPocLsb - 4}`);
  // Only the highest sub-layer's reorder count matters to a muxer; with the flag clear only it is coded.
  const orderingInfoPresent = r.flag();
  let maxNumReorderPics = 0;
  for (let i = orderingInfoPresent ? 0 : maxSubLayers - 1; i < maxSubLayers; i++) {
    r.ue(); // sps_max_dec_pic_buffering_minus1
    maxNumReorderPics = r.ue();
    r.ue(); // sps_max_latency_increase_plus1
  }
  return {
    vpsId, maxSubLayers, temporalIdNesting, profileTierLevel, spsId, chromaFormatIdc, separateColourPlane,
    width, height, bitDepthLuma, bitDepthChroma, maxNumReorderPics, log2MaxPocLsb,
  };
}

/** profile_tier_level(1, maxSubLayersMinus1): the general part is kept, the sub-layer parts skipped. */
function parseProfileTierLevel(r: BitReader, maxSubLayers: number): H265ProfileTierLevel {
  const profileSpace = r.u(2);
  const tierFlag = r.flag();
  const profileIdc = r.u(5);
  const compatibilityFlags = r.u(32);
  const constraintFlags = Buffer.alloc(6);
  for (let i = 0; i < 6; i++) constraintFlags[i] = r.u(8);
  const levelIdc = r.u(8);
  const subLayers = maxSubLayers - 1;
  const profilePresent: boolean[] = [];
  const levelPresent: boolean[] = [];
  for (let i = 0; i < subLayers; i++) {
    profilePresent.push(r.flag());
    levelPresent.push(r.flag());
  }
  // The presence flags are padded to 8 sub-layers with reserved_zero_2bits.
  if (subLayers > 0) r.skip(2 * (8 - subLayers));
  for (let i = 0; i < subLayers; i++) {
    if (profilePresent[i]) r.skip(88); // space, tier, profile, 32 compatibility flags, 48 constraint bits
    if (levelPresent[i]) r.skip(8);
  }
  return { profileSpace, tierFlag, profileIdc, compatibilityFlags, constraintFlags, levelIdc };
}

/**
 * HEVCDecoderConfigurationRecord (ISO/IEC 14496-15 8.3.3.1) for NAL units with 4-byte length prefixes,
 * holding the VPS, SPS and PPSs as complete arrays: the samples carry no parameter sets ('hvc1').
 */
export function buildHvcC(vps: Buffer, sps: Buffer, ppsList: readonly Buffer[], parsed: H265Sps = parseH265Sps(sps)): Buffer {
  if (ppsList.length === 0) throw new RangeError('hvcC needs at least one PPS');
  const arrays: Array<[number, readonly Buffer[]]> = [
    [H265_NAL_VPS, [vps]],
    [H265_NAL_SPS, [sps]],
    [H265_NAL_PPS, ppsList],
  ];
  let size = 23;
  for (const [, nalus] of arrays) {
    if (nalus.length > 0xffff) throw new RangeError('too many parameter sets for hvcC');
    size += 3;
    for (const nal of nalus) {
      if (nal.length > 0xffff) throw new RangeError('parameter set longer than 65535 bytes');
      size += 2 + nal.length;
    }
  }
  const ptl = parsed.profileTierLevel;
  const out = Buffer.alloc(size);
  let off = out.writeUInt8(1, 0); // configurationVersion
  off = out.writeUInt8((ptl.profileSpace << 6) | (ptl.tierFlag ? 0x20 : 0) | ptl.profileIdc, off);
  off = out.writeUInt32BE(ptl.compatibilityFlags, off);
  off += ptl.constraintFlags.copy(out, off);
  off = out.writeUInt8(ptl.levelIdc, off);
  // min_spatial_segmentation_idc 0 and parallelismType 0 claim nothing; both are optimisation hints.
  off = out.writeUInt16BE(0xf000, off);
  off = out.writeUInt8(0xfc, off);
  off = out.writeUInt8(0xfc | parsed.chromaFormatIdc, off);
  off = out.writeUInt8(0xf8 | (parsed.bitDepthLuma - 8), off);
  off = out.writeUInt8(0xf8 | (parsed.bitDepthChroma - 8), off);
  off = out.writeUInt16BE(0, off); // avgFrameRate: unspecified
  // constantFrameRate 0, numTemporalLayers, temporalIdNested, lengthSizeMinusOne 3
  off = out.writeUInt8((parsed.maxSubLayers << 3) | (parsed.temporalIdNesting ? 0x04 : 0) | 3, off);
  off = out.writeUInt8(arrays.length, off);
  for (const [type, nalus] of arrays) {
    off = out.writeUInt8(0x80 | type, off); // array_completeness 1, reserved 0
    off = out.writeUInt16BE(nalus.length, off);
    for (const nal of nalus) {
      off = out.writeUInt16BE(nal.length, off);
      off += nal.copy(out, off);
    }
  }
  return out;
}
