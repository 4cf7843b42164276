// Test support: an Annex-B H.264 file cut into access units and packetized into RTP (RFC 6184 single NAL and FU-A), for fixtures that play camera.
import { readFile } from 'node:fs/promises';

/** The RTP packets (without the '$' framing) of one picture, marker bit on its last. */
export interface RtpPicture {
  packets: Buffer[];
  keyframe: boolean;
}

const MAX_PAYLOAD = 1_400;

/** NAL units of an Annex-B stream (start codes 00 00 01 or 00 00 00 01). */
export function splitAnnexB(data: Buffer): Buffer[] {
  const starts: Array<{ at: number; len: number }> = [];
  for (let i = 0; i + 3 <= data.length; i++) {
    if (data[i] === 0 && data[i + 1] === 0) {
      if (data[i + 2] === 1) {
        starts.push({ at: i, len: 3 });
        i += 2;
      } else if (data[i + 2] === 0 && data[i + 3] === 1) {
        starts.push({ at: i, len: 4 });
        i += 3;
      }
    }
  }
  return starts.map((s, n) => data.subarray(s.at + s.len, starts[n + 1]?.at ?? data.length)).filter((nal) => nal.length > 0);
}

/** Groups NAL units into pictures: everything up to and including each slice (one slice per picture, as x264 writes). */
function pictures(nals: Buffer[]): Buffer[][] {
  const out: Buffer[][] = [];
  let current: Buffer[] = [];
  for (const nal of nals) {
    current.push(nal);
    const type = (nal[0] ?? 0) & 0x1f;
    if (type === 1 || type === 5) {
      out.push(current);
      current = [];
    }
  }
  return out;
}

function header(seq: number, ts: number, ssrc: number, marker: boolean): Buffer {
  const h = Buffer.alloc(12);
  h[0] = 0x80;
  h[1] = (marker ? 0x80 : 0) | 96;
  h.writeUInt16BE(seq & 0xffff, 2);
  h.writeUInt32BE(ts >>> 0, 4);
  h.writeUInt32BE(ssrc >>> 0, 8);
  return h;
}

/** Payloads of one NAL unit: itself when it fits, else FU-A fragments. */
function payloads(nal: Buffer): Buffer[] {
  if (nal.length <= MAX_PAYLOAD) return [nal];
  const indicator = ((nal[0] ?? 0) & 0xe0) | 28;
  const type = (nal[0] ?? 0) & 0x1f;
  const out: Buffer[] = [];
  for (let at = 1; at < nal.length; at += MAX_PAYLOAD - 2) {
    const end = Math.min(nal.length, at + MAX_PAYLOAD - 2);
    const fu = (at === 1 ? 0x80 : 0) | (end === nal.length ? 0x40 : 0) | type;
    out.push(Buffer.concat([Buffer.from([indicator, fu]), nal.subarray(at, end)]));
  }
  return out;
}

/** A looping H.264 RTP source: call `next()` once per picture interval for the next picture's packets. */
export class H264RtpSource {
  private seq = 1;
  private ts = 0;
  private index = 0;

  private constructor(
    private readonly units: Buffer[][],
    private readonly ticksPerPicture: number,
    readonly ssrc: number,
  ) {}

  /** Reads an Annex-B file (see encodeLoopFile) and packetizes it at `fps`. */
  static async fromFile(path: string, fps: number, ssrc = 0x5eed0001): Promise<H264RtpSource> {
    const units = pictures(splitAnnexB(await readFile(path)));
    if (units.length === 0) throw new Error(`${path}: no H.264 pictures`);
    return new H264RtpSource(units, Math.round(90_000 / fps), ssrc);
  }

  /** Another source over the same pictures, from the first one (one per client session). */
  fork(): H264RtpSource {
    return new H264RtpSource(this.units, this.ticksPerPicture, this.ssrc);
  }

  next(): RtpPicture {
    const unit = this.units[this.index % this.units.length] as Buffer[];
    this.index++;
    const all = unit.flatMap(payloads);
    const packets = all.map((payload, i) => Buffer.concat([header(this.seq++, this.ts, this.ssrc, i === all.length - 1), payload]));
    this.ts += this.ticksPerPicture;
    return { packets, keyframe: unit.some((n) => ((n[0] ?? 0) & 0x1f) === 5) };
  }
}
