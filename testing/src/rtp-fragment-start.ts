// Test support: tells from the first bytes of an RTP packet whether it starts a fragmented H.264/H.265 NAL unit, and which payload types an SDP names video.

export type VideoCodec = 'h264' | 'h265';

/**
 * Does this RTP packet start a fragmented NAL unit? `codec` undefined tries both layouts. undefined if
 * `head` (the first bytes of the packet) is too short to tell.
 */
export function isFragmentStart(head: Buffer, codec: VideoCodec | undefined): boolean | undefined {
  if (head.length < 12) return undefined;
  const b0 = head[0] ?? 0;
  if (b0 >> 6 !== 2) return false;
  let offset = 12 + 4 * (b0 & 0x0f);
  if ((b0 & 0x10) !== 0) {
    if (head.length < offset + 4) return undefined;
    offset += 4 + 4 * head.readUInt16BE(offset + 2);
  }
  if (head.length < offset + 3) return undefined;
  const n0 = head[offset] ?? 0;
  const n1 = head[offset + 1] ?? 0;
  const n2 = head[offset + 2] ?? 0;
  const h264 = (n0 & 0x1f) === 28 && (n1 & 0x80) !== 0;
  const h265 = ((n0 >> 1) & 0x3f) === 49 && (n2 & 0x80) !== 0;
  if (codec === 'h264') return h264;
  if (codec === 'h265') return h265;
  return h264 || h265;
}

/** Payload type -> video codec, from the a=rtpmap lines of an SDP. */
export function parseRtpmap(sdp: string, into: Map<number, VideoCodec | 'other'>): void {
  for (const match of sdp.matchAll(/^a=rtpmap:(\d+)\s+([A-Za-z0-9_.-]+)\//gm)) {
    const pt = Number(match[1]);
    const name = (match[2] ?? '').toUpperCase();
    into.set(pt, name === 'H264' ? 'h264' : name === 'H265' ? 'h265' : 'other');
  }
}
