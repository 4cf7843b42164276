// AAC over RTP (RFC 3640 mpeg4-generic, AAC-hbr and AAC-lbr): AU headers and data into AAC frames, and the SDP config.
import { copyBytes } from '../util/byte-copy.js';
import { AacDepacketizerBase } from './aac-depacketizer-base.js';
import { parseAudioSpecificConfig } from './audio-specific-config.js';
import { UnsupportedPayloadError, type AudioDepacketizerOptions } from './depacketizer.js';

export { parseAudioSpecificConfig } from './audio-specific-config.js';

/** `count` bits of `buf` from bit `at` (most significant first); bits past the end read as 0. */
function bitsAt(buf: Buffer, at: number, count: number): number {
  let value = 0;
  for (let bit = at; bit < at + count; bit++) value = value * 2 + (((buf[bit >> 3] ?? 0) >> (7 - (bit & 7))) & 1);
  return value;
}

function lengthParam(fmtp: Record<string, string>, key: string, fallback: number): number {
  const text = fmtp[key];
  const value = text === undefined ? fallback : Number(text.trim());
  if (!Number.isInteger(value) || value < 0 || value > 32) throw new UnsupportedPayloadError(`MPEG4-GENERIC ${key}=${text}`);
  return value;
}

/**
 * RFC 3640 modes AAC-hbr and AAC-lbr (other modes throw `UnsupportedPayloadError`); `fmtp` needs `mode` and `config`
 * (hex AudioSpecificConfig), and may give the header field lengths (defaults: hbr 13/3/3, lbr 6/2/2) and
 * `constantduration`. The AUs of a packet get the packet's timestamp plus one frame duration each (`constantduration`
 * if given, else the frame length scaled to the clock rate). An AU fragmented over packets is reassembled and emitted
 * when its last byte arrives; a loss drops the part held. Interleaving (AU-Index-delta other than 0) is not supported:
 * such a packet counts as malformed and is dropped.
 */
export class AacDepacketizer extends AacDepacketizerBase {
  private readonly sizeLength: number;
  private readonly indexLength: number;
  private readonly indexDeltaLength: number;
  private readonly ctsDeltaLength: number;
  private readonly dtsDeltaLength: number;
  private readonly rapLength: number;
  private readonly streamStateLength: number;
  private readonly auxSizeLength: number;
  private readonly sizes: number[] = [];
  /** The AU being reassembled from fragments, allocated at its full size by the first fragment. */
  private fragment: Buffer | undefined;
  private fragmentUsed = 0;
  private fragmentTimestamp = 0;
  private fragmentReceivedAt = 0;
  /** After a loss in the middle of a fragmented AU: its remaining fragments (this timestamp) are thrown away. */
  private skippingTimestamp = -1;

  constructor(options: AudioDepacketizerOptions) {
    const fmtp = options.fmtp ?? {};
    const mode = fmtp['mode']?.trim().toLowerCase();
    if (mode !== 'aac-hbr' && mode !== 'aac-lbr') throw new UnsupportedPayloadError(`MPEG4-GENERIC mode=${fmtp['mode'] ?? '(none)'}`);
    if (fmtp['streamtype'] !== undefined && fmtp['streamtype'].trim() !== '5') throw new UnsupportedPayloadError(`MPEG4-GENERIC streamtype=${fmtp['streamtype']}`);
    const hbr = mode === 'aac-hbr';
    const sizeLength = lengthParam(fmtp, 'sizelength', hbr ? 13 : 6);
    const indexLength = lengthParam(fmtp, 'indexlength', hbr ? 3 : 2);
    const indexDeltaLength = lengthParam(fmtp, 'indexdeltalength', hbr ? 3 : 2);
    const ctsDeltaLength = lengthParam(fmtp, 'ctsdeltalength', 0);
    const dtsDeltaLength = lengthParam(fmtp, 'dtsdeltalength', 0);
    const rapLength = Math.min(1, lengthParam(fmtp, 'randomaccessindication', 0));
    const streamStateLength = lengthParam(fmtp, 'streamstateindication', 0);
    const auxSizeLength = lengthParam(fmtp, 'auxiliarydatasizelength', 0);
    if (sizeLength === 0) throw new UnsupportedPayloadError('MPEG4-GENERIC sizelength=0 (constant-size AUs)');
    const hex = fmtp['config']?.trim() ?? '';
    if (!/^([0-9a-f]{2})+$/i.test(hex)) throw new UnsupportedPayloadError(`MPEG4-GENERIC config=${fmtp['config'] ?? '(none)'}`);
    const constantDuration = Number(fmtp['constantduration'] ?? 'NaN');
    super(parseAudioSpecificConfig(Buffer.from(hex, 'hex')), options, constantDuration > 0 ? constantDuration : undefined);
    this.sizeLength = sizeLength;
    this.indexLength = indexLength;
    this.indexDeltaLength = indexDeltaLength;
    this.ctsDeltaLength = ctsDeltaLength;
    this.dtsDeltaLength = dtsDeltaLength;
    this.rapLength = rapLength;
    this.streamStateLength = streamStateLength;
    this.auxSizeLength = auxSizeLength;
  }

  push(packet: Buffer, receivedAt: number, packetStart = 0, packetEnd: number = packet.length): void {
    const verdict = this.intake.take(packet, receivedAt, packetStart, packetEnd);
    if (verdict === 'ignored') return;
    const header = this.intake.header;
    const timestamp = header.timestamp;
    if (verdict === 'break' && this.fragment !== undefined) {
      // Whatever of this frame still comes belongs to the frame just given up: skip it without counting it again.
      this.skippingTimestamp = this.fragmentTimestamp;
      this.dropFragment();
    } else if (this.fragment !== undefined && timestamp !== this.fragmentTimestamp) this.dropFragment();
    if (timestamp !== this.skippingTimestamp) this.skippingTimestamp = -1;
    const start = header.payloadOffset;
    const end = header.payloadEnd;
    if (this.skippingTimestamp < 0 && !this.readHeaders(packet, start, end)) {
      this.stats.malformedPackets++;
      this.dropFragment();
    } else if (this.skippingTimestamp < 0) {
      const dataStart = this.dataStart(packet, start);
      const first = this.sizes[0] ?? 0;
      if (this.sizes.length === 1 && (this.fragment !== undefined || first > end - dataStart)) {
        this.takeFragment(packet, dataStart, end, first, timestamp, receivedAt, verdict === 'break');
      } else {
        this.dropFragment();
        this.emitWhole(packet, dataStart, end, timestamp, receivedAt);
      }
    }
    if (header.marker) {
      this.skippingTimestamp = -1;
      // The last fragment came and the AU is still short of its size.
      this.dropFragment();
    }
  }

  flush(): void {
    this.dropFragment();
  }

  reset(): void {
    this.fragment = undefined;
    this.skippingTimestamp = -1;
    this.intake.reset();
  }

  /** Fills `sizes` from the AU headers; false when they do not add up. */
  private readHeaders(packet: Buffer, start: number, end: number): boolean {
    this.sizes.length = 0;
    if (end - start < 2) return false;
    const headerBits = packet.readUInt16BE(start);
    let bit = (start + 2) * 8;
    const headersEnd = bit + headerBits;
    if (this.dataStart(packet, start) > end) return false;
    while (bit < headersEnd) {
      this.sizes.push(bitsAt(packet, bit, this.sizeLength));
      bit += this.sizeLength;
      const indexLength = this.sizes.length === 1 ? this.indexLength : this.indexDeltaLength;
      // A delta other than 0 means the AUs are interleaved across packets.
      if (this.sizes.length > 1 && bitsAt(packet, bit, indexLength) !== 0) return false;
      bit += indexLength;
      if (this.ctsDeltaLength > 0) bit += 1 + (bitsAt(packet, bit, 1) === 1 ? this.ctsDeltaLength : 0);
      if (this.dtsDeltaLength > 0) bit += 1 + (bitsAt(packet, bit, 1) === 1 ? this.dtsDeltaLength : 0);
      bit += this.rapLength + this.streamStateLength;
    }
    return bit === headersEnd && this.sizes.length > 0;
  }

  /** Where the AU data begins: after the AU headers, and the auxiliary section if the stream has one. */
  private dataStart(packet: Buffer, start: number): number {
    let at = start + 2 + Math.ceil(packet.readUInt16BE(start) / 8);
    if (this.auxSizeLength > 0) at += Math.ceil((this.auxSizeLength + bitsAt(packet, at * 8, this.auxSizeLength)) / 8);
    return at;
  }

  private emitWhole(packet: Buffer, dataStart: number, end: number, timestamp: number, receivedAt: number): void {
    let total = 0;
    for (const size of this.sizes) total += size;
    if (total > end - dataStart) {
      this.stats.malformedPackets++;
      return;
    }
    // One allocation for the packet's frames; each frame is a view of it.
    const data = Buffer.allocUnsafe(total);
    copyBytes(packet, dataStart, dataStart + total, data, 0);
    let at = 0;
    for (let i = 0; i < this.sizes.length; i++) {
      const size = this.sizes[i] ?? 0;
      if (size > 0) this.emitFrame(data.subarray(at, at + size), (timestamp + i * this.frameTicks) >>> 0, receivedAt);
      at += size;
    }
  }

  private takeFragment(packet: Buffer, dataStart: number, end: number, size: number, timestamp: number, receivedAt: number, afterLoss: boolean): void {
    if (this.fragment === undefined) {
      // After a loss this may be a middle fragment: nothing tells it from a first one, so the AU is given up.
      if (afterLoss) {
        this.stats.droppedUnits++;
        this.skippingTimestamp = timestamp;
        return;
      }
      this.fragment = Buffer.allocUnsafe(size);
      this.fragmentUsed = 0;
      this.fragmentTimestamp = timestamp;
      this.fragmentReceivedAt = receivedAt;
    }
    const fragment = this.fragment;
    if (size !== fragment.length || this.fragmentUsed + (end - dataStart) > size) {
      this.stats.malformedPackets++;
      this.dropFragment();
      this.skippingTimestamp = timestamp;
      return;
    }
    this.fragmentUsed += copyBytes(packet, dataStart, end, fragment, this.fragmentUsed);
    if (this.fragmentUsed < size) return;
    this.fragment = undefined;
    this.emitFrame(fragment, timestamp, this.fragmentReceivedAt);
  }

  private dropFragment(): void {
    if (this.fragment === undefined) return;
    this.fragment = undefined;
    this.stats.droppedUnits++;
  }
}
