// H.265 over RTP (RFC 7798): single NAL unit, aggregation (AP) and fragmentation (FU) packets into access units.
import { UnsupportedPayloadError, type VideoDepacketizerOptions } from './depacketizer.js';
import { base64Nals, readUe } from './parameter-set-store.js';
import {
  NAL_DROP,
  NAL_INVALID,
  NAL_KEY_SLICE,
  NAL_OTHER,
  NAL_PPS,
  NAL_SLICE,
  NAL_SPS,
  NAL_VPS,
  VideoDepacketizerBase,
} from './video-depacketizer.js';

const AP = 48;
const FU = 49;
const PACI = 50;

function nalType(buf: Buffer, start: number): number {
  return ((buf[start] ?? 0) >> 1) & 0x3f;
}

/**
 * Streams without decoding order numbers only: `sprop-max-don-diff` above 0 (DONL/DOND fields in every packet) throws
 * `UnsupportedPayloadError`. `sprop-vps`/`sprop-sps`/`sprop-pps` of `fmtp` seed `parameterSets`. VPS, SPS and PPS go to
 * `parameterSets`, never into a unit; access unit delimiters and filler data are dropped; a unit is a keyframe when it
 * holds an IRAP slice (BLA, IDR, CRA: types 16–21).
 */
export class H265Depacketizer extends VideoDepacketizerBase {
  constructor(options: VideoDepacketizerOptions) {
    const fmtp = options.fmtp ?? {};
    const maxDonDiff = Number(fmtp['sprop-max-don-diff'] ?? '0');
    if (maxDonDiff !== 0) {
      throw new UnsupportedPayloadError(`H265 sprop-max-don-diff=${fmtp['sprop-max-don-diff']} (DONL decoding order numbers are not supported)`);
    }
    super('h265', options);
    for (const key of ['sprop-vps', 'sprop-sps', 'sprop-pps']) for (const nal of base64Nals(fmtp[key])) this.addSdpNal(nal);
  }

  protected depacketize(packet: Buffer, start: number, end: number): void {
    // Two bytes is a whole NAL unit header, and all of an end-of-sequence or end-of-bitstream unit.
    if (end - start < 2) return this.malformed();
    const type = nalType(packet, start);
    if (type < AP) {
      // A whole NAL unit while a fragmented one is open: the fragment's end never came.
      if (this.fragmentOpen) return this.malformed();
      return this.addNal(packet, start, end);
    }
    if (type === AP) return this.aggregate(packet, start + 2, end);
    if (type === FU) return this.fragment(packet, start, end);
    // PACI wraps a NAL unit we would have to unwrap (and may carry a slice); 51–63 are unspecified: ignorable.
    if (type === PACI) return this.malformed();
    this.stats.malformedPackets++;
    return undefined;
  }

  protected classify(buf: Buffer, start: number, end: number): number {
    if (end - start < 2 || ((buf[start] ?? 0) & 0x80) !== 0) return NAL_INVALID;
    const type = nalType(buf, start);
    if (type <= 31) return type >= 16 && type <= 21 ? NAL_KEY_SLICE : NAL_SLICE;
    if (type === 32) return NAL_VPS;
    if (type === 33) return NAL_SPS;
    if (type === 34) return NAL_PPS;
    // 35: access unit delimiter, 38: filler data; the muxer's format has no use for either.
    if (type === 35 || type === 38 || type > PACI) return NAL_DROP;
    if (type >= AP) return NAL_INVALID;
    return NAL_OTHER;
  }

  protected startsPicture(packet: Buffer, start: number, end: number): boolean {
    let type = nalType(packet, start);
    let at = start + 2;
    if (type === AP) {
      type = nalType(packet, start + 4);
      at = start + 6;
    } else if (type === FU) {
      const fuHeader = packet[start + 2] ?? 0;
      if ((fuHeader & 0x80) === 0) return false;
      type = fuHeader & 0x3f;
      at = start + 3;
    }
    if (type === 35 || type === 32 || type === 33) return true;
    // A slice segment header opens with first_slice_segment_in_pic_flag.
    return type <= 31 && at < end && ((packet[at] ?? 0) & 0x80) !== 0;
  }

  protected ppsId(buf: Buffer, start: number, end: number): number {
    return readUe(buf, start + 2, end);
  }

  private fragment(packet: Buffer, start: number, end: number): void {
    if (end - start < 4) return this.malformed();
    const fuHeader = packet[start + 2] ?? 0;
    if ((fuHeader & 0x80) !== 0) {
      // The NAL unit header: the payload header's F bit, layer id and temporal id, with the FU header's type.
      this.beginFragment(((packet[start] ?? 0) & 0x81) | ((fuHeader & 0x3f) << 1), packet[start + 1] ?? 0);
    } else if (!this.fragmentOpen) return this.malformed();
    this.appendFragment(packet, start + 3, end);
    if ((fuHeader & 0x40) !== 0) this.endFragment();
    return undefined;
  }
}
