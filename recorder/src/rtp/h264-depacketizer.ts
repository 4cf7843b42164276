// H.264 over RTP (RFC 6184): single NAL unit, STAP-A and FU-A packets into access units.
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
  VideoDepacketizerBase,
} from './video-depacketizer.js';

const STAP_A = 24;
const FU_A = 28;

/**
 * Modes 0 and 1 (`packetization-mode` absent, 0 or 1); mode 2 (interleaved: STAP-B, MTAP, FU-B, decoding order
 * numbers) throws `UnsupportedPayloadError`. `sprop-parameter-sets` of `fmtp` seeds `parameterSets`.
 * SPS and PPS go to `parameterSets`, never into a unit; access unit delimiters and filler data are dropped.
 */
export class H264Depacketizer extends VideoDepacketizerBase {
  constructor(options: VideoDepacketizerOptions) {
    const mode = options.fmtp?.['packetization-mode']?.trim() ?? '0';
    if (mode !== '0' && mode !== '1') throw new UnsupportedPayloadError(`H264 packetization-mode=${mode}`);
    super('h264', options);
    for (const nal of base64Nals(options.fmtp?.['sprop-parameter-sets'])) this.addSdpNal(nal);
  }

  protected depacketize(packet: Buffer, start: number, end: number): void {
    const type = (packet[start] ?? 0) & 0x1f;
    if (type >= 1 && type <= 23) {
      // A whole NAL unit while a fragmented one is open: the fragment's end never came.
      if (this.fragmentOpen) return this.malformed();
      return this.addNal(packet, start, end);
    }
    if (type === STAP_A) return this.aggregate(packet, start + 1, end);
    if (type === FU_A) return this.fragment(packet, start, end);
    // 0 and 30–31 are unspecified: ignorable. STAP-B, MTAP16/24 and FU-B belong to mode 2 and may carry slices.
    if (type !== 0 && type < 30) return this.malformed();
    this.stats.malformedPackets++;
    return undefined;
  }

  protected classify(buf: Buffer, start: number): number {
    const header = buf[start] ?? 0;
    if ((header & 0x80) !== 0) return NAL_INVALID;
    const type = header & 0x1f;
    if (type === 5) return NAL_KEY_SLICE;
    if (type >= 1 && type <= 4) return NAL_SLICE;
    if (type === 7) return NAL_SPS;
    if (type === 8) return NAL_PPS;
    // 9: access unit delimiter, 12: filler data; the muxer's format has no use for either.
    if (type === 0 || type === 9 || type === 12) return NAL_DROP;
    if (type >= 24) return NAL_INVALID;
    return NAL_OTHER;
  }

  protected startsPicture(packet: Buffer, start: number, end: number): boolean {
    let type = (packet[start] ?? 0) & 0x1f;
    let at = start + 1;
    if (type === STAP_A) {
      type = (packet[start + 3] ?? 0) & 0x1f;
      at = start + 4;
    } else if (type === FU_A) {
      const fuHeader = packet[start + 1] ?? 0;
      if ((fuHeader & 0x80) === 0) return false;
      type = fuHeader & 0x1f;
      at = start + 2;
    }
    if (type === 9 || type === 7) return true;
    // first_mb_in_slice is the slice header's first ue(v): 0 is the single bit 1.
    return type >= 1 && type <= 5 && at < end && ((packet[at] ?? 0) & 0x80) !== 0;
  }

  protected ppsId(buf: Buffer, start: number, end: number): number {
    return readUe(buf, start + 1, end);
  }

  private fragment(packet: Buffer, start: number, end: number): void {
    if (end - start < 3) return this.malformed();
    const indicator = packet[start] ?? 0;
    const fuHeader = packet[start + 1] ?? 0;
    if ((fuHeader & 0x80) !== 0) this.beginFragment((indicator & 0xe0) | (fuHeader & 0x1f), -1);
    else if (!this.fragmentOpen) return this.malformed();
    this.appendFragment(packet, start + 2, end);
    if ((fuHeader & 0x40) !== 0) this.endFragment();
    return undefined;
  }
}
