// RTP fixed-header parsing (RFC 3550 §5.1) into one caller-owned struct, so a packet costs no allocation.

/**
 * The fields of one RTP packet's header. Reuse one per track: `parseRtpHeader` overwrites every field. The payload is
 * `buffer[payloadOffset, payloadEnd)` of the buffer parsed, after CSRCs and the header extension and before any padding.
 */
export interface RtpHeader {
  marker: boolean;
  payloadType: number;
  sequenceNumber: number;
  /** 32-bit unsigned. */
  timestamp: number;
  /** 32-bit unsigned. */
  ssrc: number;
  csrcCount: number;
  /** The header extension's 16-bit profile ("defined by profile" field), or -1 without an extension. */
  extensionProfile: number;
  /** Bytes of padding stripped from the end (0 without the P bit). */
  paddingBytes: number;
  payloadOffset: number;
  payloadEnd: number;
}

export const RTP_HEADER_BYTES = 12;

export function createRtpHeader(): RtpHeader {
  return {
    marker: false,
    payloadType: 0,
    sequenceNumber: 0,
    timestamp: 0,
    ssrc: 0,
    csrcCount: 0,
    extensionProfile: -1,
    paddingBytes: 0,
    payloadOffset: RTP_HEADER_BYTES,
    payloadEnd: RTP_HEADER_BYTES,
  };
}

/**
 * Fills `into` from the packet `buffer[start, end)` (all of `buffer` by default); false (and `into` partly overwritten)
 * when it is not a valid RTP packet: too short, version not 2, CSRCs, extension or padding running past the end.
 * `payloadOffset` and `payloadEnd` are offsets in `buffer`.
 */
export function parseRtpHeader(buffer: Buffer, into: RtpHeader, start = 0, end: number = buffer.length): boolean {
  if (end - start < RTP_HEADER_BYTES) return false;
  const b0 = buffer[start] ?? 0;
  if (b0 >> 6 !== 2) return false;
  const b1 = buffer[start + 1] ?? 0;
  const csrcCount = b0 & 0x0f;
  let offset = start + RTP_HEADER_BYTES + csrcCount * 4;
  if (offset > end) return false;
  let extensionProfile = -1;
  if ((b0 & 0x10) !== 0) {
    if (offset + 4 > end) return false;
    extensionProfile = buffer.readUInt16BE(offset);
    offset += 4 + buffer.readUInt16BE(offset + 2) * 4;
    if (offset > end) return false;
  }
  let payloadEnd = end;
  let paddingBytes = 0;
  if ((b0 & 0x20) !== 0) {
    // The last byte counts itself, so 0 is invalid (RFC 3550 §5.1).
    paddingBytes = buffer[end - 1] ?? 0;
    if (paddingBytes === 0 || paddingBytes > end - offset) return false;
    payloadEnd = end - paddingBytes;
  }
  into.marker = (b1 & 0x80) !== 0;
  into.payloadType = b1 & 0x7f;
  into.sequenceNumber = buffer.readUInt16BE(start + 2);
  into.timestamp = buffer.readUInt32BE(start + 4);
  into.ssrc = buffer.readUInt32BE(start + 8);
  into.csrcCount = csrcCount;
  into.extensionProfile = extensionProfile;
  into.paddingBytes = paddingBytes;
  into.payloadOffset = offset;
  into.payloadEnd = payloadEnd;
  return true;
}

// Single-field readers for a caller that only routes packets (e.g. by SSRC) and does not want a header struct.
// They assume a packet of at least 12 bytes.

export function rtpSequenceNumber(packet: Buffer): number {
  return packet.readUInt16BE(2);
}

export function rtpTimestamp(packet: Buffer): number {
  return packet.readUInt32BE(4);
}

export function rtpSsrc(packet: Buffer): number {
  return packet.readUInt32BE(8);
}

export function rtpPayloadType(packet: Buffer): number {
  return (packet[1] ?? 0) & 0x7f;
}

export function rtpMarker(packet: Buffer): boolean {
  return ((packet[1] ?? 0) & 0x80) !== 0;
}

/**
 * An RTCP packet where RTP and RTCP share one channel (RFC 5761 §4): the second byte is an RTCP packet type 192–223,
 * which as marker+payload type would be the RTP payload types 64–95 that RFC 5761 keeps free for this.
 */
export function looksLikeRtcp(packet: Buffer): boolean {
  const b1 = packet[1] ?? 0;
  return packet.length >= 4 && b1 >= 192 && b1 <= 223;
}
