// Test support for the RTP depacketizers: hand-built RTP packets and payloads, and a feeder that reuses one read buffer.
import type { AccessUnit, AudioAccessUnit, VideoAccessUnit } from '../../src/rtp/access-unit.js';
import type { Depacketizer } from '../../src/rtp/depacketizer.js';

export interface PacketFields {
  seq: number;
  ts: number;
  marker?: boolean;
  payloadType?: number;
  ssrc?: number;
  csrcs?: number[];
  /** Header extension data (a multiple of 4 bytes). */
  extension?: Buffer;
  /** Padding bytes to add (the P bit and the count byte). */
  padding?: number;
}

export function rtpPacket(fields: PacketFields, payload: Buffer): Buffer {
  const csrcs = fields.csrcs ?? [];
  const ext = fields.extension;
  const padding = fields.padding ?? 0;
  const header = Buffer.alloc(12 + csrcs.length * 4 + (ext !== undefined ? 4 + ext.length : 0));
  header[0] = 0x80 | (padding > 0 ? 0x20 : 0) | (ext !== undefined ? 0x10 : 0) | csrcs.length;
  header[1] = (fields.marker === true ? 0x80 : 0) | (fields.payloadType ?? 96);
  header.writeUInt16BE(fields.seq & 0xffff, 2);
  header.writeUInt32BE(fields.ts >>> 0, 4);
  header.writeUInt32BE(fields.ssrc ?? 0x11223344, 8);
  csrcs.forEach((csrc, i) => header.writeUInt32BE(csrc, 12 + i * 4));
  if (ext !== undefined) {
    const at = 12 + csrcs.length * 4;
    header.writeUInt16BE(0xbede, at);
    header.writeUInt16BE(ext.length / 4, at + 2);
    ext.copy(header, at + 4);
  }
  const pad = Buffer.alloc(padding);
  if (padding > 0) pad[padding - 1] = padding;
  return Buffer.concat([header, payload, pad]);
}

/**
 * A NAL unit: its header byte(s) and `size` bytes of recognisable body. The body's first bit is 1: for a slice that
 * makes it the first of its picture (H.264 first_mb_in_slice 0, H.265 first_slice_segment_in_pic_flag).
 */
export function nal(header: number[], size = 20, seed = 1): Buffer {
  const body = Buffer.alloc(size);
  for (let i = 0; i < size; i++) body[i] = (seed * 31 + i * 7) & 0xff || 1;
  body[0] = 0x80 | ((body[0] ?? 0) & 0x7f);
  return Buffer.concat([Buffer.from(header), body]);
}

/** H.264 NAL header byte for a type (nal_ref_idc 3). */
export const h264 = (type: number): number[] => [0x60 | type];
/** H.265 NAL header bytes for a type (layer 0, temporal id 1). */
export const h265 = (type: number): number[] => [type << 1, 1];

export function aggregate(prefix: number[], nals: Buffer[]): Buffer {
  const parts: Buffer[] = [Buffer.from(prefix)];
  for (const n of nals) {
    const size = Buffer.alloc(2);
    size.writeUInt16BE(n.length);
    parts.push(size, n);
  }
  return Buffer.concat(parts);
}

/** FU-A payloads (H.264) of a NAL unit, `chunk` body bytes each. */
export function fuA(unit: Buffer, chunk: number): Buffer[] {
  const header = unit[0] ?? 0;
  const body = unit.subarray(1);
  const out: Buffer[] = [];
  for (let at = 0; at < body.length; at += chunk) {
    const s = at === 0 ? 0x80 : 0;
    const e = at + chunk >= body.length ? 0x40 : 0;
    out.push(Buffer.concat([Buffer.from([(header & 0xe0) | 28, s | e | (header & 0x1f)]), body.subarray(at, at + chunk)]));
  }
  return out;
}

/** FU payloads (H.265) of a NAL unit. */
export function fuH265(unit: Buffer, chunk: number): Buffer[] {
  const type = ((unit[0] ?? 0) >> 1) & 0x3f;
  const body = unit.subarray(2);
  const out: Buffer[] = [];
  for (let at = 0; at < body.length; at += chunk) {
    const s = at === 0 ? 0x80 : 0;
    const e = at + chunk >= body.length ? 0x40 : 0;
    out.push(Buffer.concat([Buffer.from([((unit[0] ?? 0) & 0x81) | (49 << 1), unit[1] ?? 0, s | e | type]), body.subarray(at, at + chunk)]));
  }
  return out;
}

/**
 * Feeds packets the way the RTSP client does: each one is copied into a single shared read buffer, pushed as a view
 * of it, and the buffer is scribbled over right after — so a depacketizer that keeps views instead of copies fails.
 */
export function feed(depacketizer: Depacketizer, packets: Buffer[], receivedAt = 1000): void {
  // As on a TCP session: each packet is a byte range somewhere inside a read buffer shared with other streams, with
  // other bytes around it, and the buffer is overwritten once push returns.
  const shared = Buffer.alloc(65536 + 64, 0xee);
  packets.forEach((packet, i) => {
    const start = 1 + ((i * 13) % 50);
    packet.copy(shared, start);
    depacketizer.push(shared, receivedAt, start, start + packet.length);
    shared.fill(0xee, start, start + packet.length);
  });
}

/** Numbers packets of one stream in order: `next(ts, payload, marker)`. */
export class PacketSequence {
  constructor(
    public seq = 1000,
    private readonly ssrc = 0x11223344,
  ) {}

  next(ts: number, payload: Buffer, marker = false): Buffer {
    return rtpPacket({ seq: this.seq++ & 0xffff, ts, marker, ssrc: this.ssrc }, payload);
  }

  /** One packet per payload, the marker on the last. */
  unit(ts: number, payloads: Buffer[]): Buffer[] {
    return payloads.map((p, i) => this.next(ts, p, i === payloads.length - 1));
  }
}

/** A copy of an access unit that outlives the onUnit call (video NAL units are views of the depacketizer's memory). */
export function keepUnit(u: AccessUnit): AccessUnit {
  return u.kind === 'video' ? { ...u, nalus: u.nalus.map((n) => Buffer.from(n)) } : u;
}

export function collector(): { units: AccessUnit[]; video: () => VideoAccessUnit[]; audio: () => AudioAccessUnit[]; onUnit: (u: AccessUnit) => void } {
  const units: AccessUnit[] = [];
  return {
    units,
    // A video unit's NAL units are only valid during the call.
    onUnit: (u) => units.push(keepUnit(u)),
    video: () => units.filter((u): u is VideoAccessUnit => u.kind === 'video'),
    audio: () => units.filter((u): u is AudioAccessUnit => u.kind === 'audio'),
  };
}

/** RFC 4571 framing (what GStreamer's rtpstreampay writes): a 2-byte length before each packet. */
export function splitRtpStream(data: Buffer): Buffer[] {
  const packets: Buffer[] = [];
  let at = 0;
  while (at + 2 <= data.length) {
    const length = data.readUInt16BE(at);
    if (at + 2 + length > data.length) break;
    packets.push(data.subarray(at + 2, at + 2 + length));
    at += 2 + length;
  }
  return packets;
}
