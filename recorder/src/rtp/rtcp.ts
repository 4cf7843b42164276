// RTCP (RFC 3550 §6) for a receiver: reading Sender Reports, SDES and BYE out of compound packets, building Receiver Reports.

const SR = 200;
const RR = 201;
const SDES = 202;
const BYE = 203;
const CNAME = 1;
/** Seconds from the NTP epoch (1900-01-01) to the Unix epoch. */
const NTP_UNIX_OFFSET_S = 2208988800;
const TWO_32 = 0x100000000;

export interface SenderReport {
  ssrc: number;
  /** The report's NTP timestamp as ms since the Unix epoch (fractional). */
  ntpMs: number;
  /** The middle 32 bits of the NTP timestamp: what a Receiver Report echoes as LSR. */
  ntpMiddle: number;
  rtpTimestamp: number;
  packetCount: number;
  octetCount: number;
}

/** One report block of an SR or RR (about a source the reporter receives). */
export interface ReportBlock {
  ssrc: number;
  /** 8-bit fixed point: lost/expected × 256. */
  fractionLost: number;
  /** 24-bit signed. */
  cumulativeLost: number;
  extendedHighestSequence: number;
  jitter: number;
  lastSr: number;
  /** Delay since the last SR, in units of 1/65536 s. */
  delaySinceLastSr: number;
}

export interface ReceiverReport {
  ssrc: number;
  blocks: ReportBlock[];
}

export interface RtcpSummary {
  senderReports: SenderReport[];
  receiverReports: ReceiverReport[];
  /** CNAME of each SDES chunk that has one. */
  cnames: Array<{ ssrc: number; cname: string }>;
  /** A BYE was in the packet: the listed sources are leaving. */
  bye: boolean;
  byeSsrcs: number[];
  /** The compound packet broke off (bad version or a length past the end); what came before is still reported. */
  malformed: boolean;
}

/** NTP seconds and fraction → ms since the Unix epoch; seconds below 2^31 are taken as era 1 (after 2036-02-07). */
export function ntpToUnixMs(seconds: number, fraction: number): number {
  const era = seconds < 0x80000000 ? TWO_32 : 0;
  return (seconds + era - NTP_UNIX_OFFSET_S) * 1000 + (fraction / TWO_32) * 1000;
}

/** Delay since the last SR in the 1/65536 s units of a report block's DLSR field. */
export function delaySinceLastSrUnits(delayMs: number): number {
  return Math.max(0, Math.min(0xffffffff, Math.round((delayMs * 65536) / 1000)));
}

function readBlock(buf: Buffer, at: number): ReportBlock {
  const lost = buf.readUInt32BE(at + 4) & 0xffffff;
  return {
    ssrc: buf.readUInt32BE(at),
    fractionLost: buf[at + 4] ?? 0,
    cumulativeLost: lost >= 0x800000 ? lost - 0x1000000 : lost,
    extendedHighestSequence: buf.readUInt32BE(at + 8),
    jitter: buf.readUInt32BE(at + 12),
    lastSr: buf.readUInt32BE(at + 16),
    delaySinceLastSr: buf.readUInt32BE(at + 20),
  };
}

function readBlocks(buf: Buffer, at: number, count: number, end: number): ReportBlock[] {
  const blocks: ReportBlock[] = [];
  for (let i = 0; i < count && at + 24 <= end; i++, at += 24) blocks.push(readBlock(buf, at));
  return blocks;
}

function readSdes(buf: Buffer, start: number, count: number, end: number, into: RtcpSummary['cnames']): void {
  let at = start;
  for (let chunk = 0; chunk < count && at + 4 <= end; chunk++) {
    const ssrc = buf.readUInt32BE(at);
    at += 4;
    while (at < end && buf[at] !== 0) {
      const type = buf[at] ?? 0;
      const length = buf[at + 1] ?? 0;
      if (at + 2 + length > end) return;
      if (type === CNAME) into.push({ ssrc, cname: buf.toString('utf8', at + 2, at + 2 + length) });
      at += 2 + length;
    }
    // The END item, then null bytes up to the next 32-bit boundary.
    at = (at - start + 4) & ~3;
    at += start;
  }
}

/** Everything a receiver cares about in one compound RTCP packet. */
export function parseRtcp(packet: Buffer): RtcpSummary {
  const summary: RtcpSummary = { senderReports: [], receiverReports: [], cnames: [], bye: false, byeSsrcs: [], malformed: false };
  let at = 0;
  while (at + 4 <= packet.length) {
    const b0 = packet[at] ?? 0;
    const type = packet[at + 1] ?? 0;
    const end = at + (packet.readUInt16BE(at + 2) + 1) * 4;
    if (b0 >> 6 !== 2 || end > packet.length) {
      summary.malformed = true;
      break;
    }
    const count = b0 & 0x1f;
    // Padding (only allowed on the last packet) is inside the length: cut it off the body.
    const bodyEnd = (b0 & 0x20) !== 0 ? end - (packet[end - 1] ?? 0) : end;
    if (type === SR && at + 28 <= bodyEnd) {
      const seconds = packet.readUInt32BE(at + 8);
      const fraction = packet.readUInt32BE(at + 12);
      summary.senderReports.push({
        ssrc: packet.readUInt32BE(at + 4),
        ntpMs: ntpToUnixMs(seconds, fraction),
        ntpMiddle: (((seconds & 0xffff) << 16) | (fraction >>> 16)) >>> 0,
        rtpTimestamp: packet.readUInt32BE(at + 16),
        packetCount: packet.readUInt32BE(at + 20),
        octetCount: packet.readUInt32BE(at + 24),
      });
    } else if (type === RR && at + 8 <= bodyEnd) {
      summary.receiverReports.push({ ssrc: packet.readUInt32BE(at + 4), blocks: readBlocks(packet, at + 8, count, bodyEnd) });
    } else if (type === SDES) {
      readSdes(packet, at + 4, count, bodyEnd, summary.cnames);
    } else if (type === BYE) {
      summary.bye = true;
      for (let i = 0; i < count && at + 8 + i * 4 <= bodyEnd; i++) summary.byeSsrcs.push(packet.readUInt32BE(at + 4 + i * 4));
    }
    at = end;
  }
  return summary;
}

export interface ReceiverReportInput {
  /** Our SSRC (any random 32-bit number, fixed for the session). */
  ssrc: number;
  /** Our CNAME, e.g. `vigil@<host>`. */
  cname: string;
  /**
   * The report block about the camera's source; absent before any packet arrived. `lastSr` is the `ntpMiddle` of the
   * last Sender Report received from it and `delaySinceLastSr` the time since (`delaySinceLastSrUnits`), both 0 if none.
   */
  report?: ReportBlock;
}

/** A compound RTCP packet: a Receiver Report (with one block, or none) and an SDES with our CNAME. */
export function buildReceiverReport(input: ReceiverReportInput): Buffer {
  const cname = Buffer.from(input.cname, 'utf8').subarray(0, 255);
  const rrBytes = 8 + (input.report !== undefined ? 24 : 0);
  // SDES chunk: SSRC, CNAME item (type, length, text), END, padded to a 32-bit boundary.
  const chunkBytes = (4 + 2 + cname.length + 1 + 3) & ~3;
  const sdesBytes = 4 + chunkBytes;
  const out = Buffer.alloc(rrBytes + sdesBytes);
  out[0] = 0x80 | (input.report !== undefined ? 1 : 0);
  out[1] = RR;
  out.writeUInt16BE(rrBytes / 4 - 1, 2);
  out.writeUInt32BE(input.ssrc >>> 0, 4);
  const r = input.report;
  if (r !== undefined) {
    const lost = Math.max(-0x800000, Math.min(0x7fffff, Math.trunc(r.cumulativeLost)));
    out.writeUInt32BE(r.ssrc >>> 0, 8);
    out.writeUInt32BE(((Math.min(255, Math.max(0, Math.floor(r.fractionLost))) << 24) | (lost & 0xffffff)) >>> 0, 12);
    out.writeUInt32BE(r.extendedHighestSequence >>> 0, 16);
    out.writeUInt32BE(Math.min(0xffffffff, Math.max(0, Math.floor(r.jitter))), 20);
    out.writeUInt32BE(r.lastSr >>> 0, 24);
    out.writeUInt32BE(Math.min(0xffffffff, Math.max(0, Math.round(r.delaySinceLastSr))), 28);
  }
  const at = rrBytes;
  out[at] = 0x81;
  out[at + 1] = SDES;
  out.writeUInt16BE(sdesBytes / 4 - 1, at + 2);
  out.writeUInt32BE(input.ssrc >>> 0, at + 4);
  out[at + 8] = CNAME;
  out[at + 9] = cname.length;
  cname.copy(out, at + 10);
  // The rest is zero (Buffer.alloc): the END item and the padding.
  return out;
}
