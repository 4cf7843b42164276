// Puts a recorded fragment on the playback timeline: a copy of its moof with decode times shifted and a new sequence number.
import { BoxFormatError, children, readBoxHeader } from '../media/box-reader.js';

const TFHD_BASE_DATA_OFFSET = 0x000001;

export interface Retiming {
  /** Ticks added to each track's decode times (by track id; a track not named keeps its times). */
  shifts: ReadonlyMap<number, number>;
  /** The fragment's mfhd sequence number in the output (increasing by one per fragment). */
  sequenceNumber: number;
  /** Where the moof was in its file and where it goes in the output: an explicit base-data-offset moves with it. */
  fromOffset: number;
  toOffset: number;
}

/**
 * A new moof: tfdt of every traf shifted (never below zero), mfhd renumbered, an explicit tfhd base-data-offset
 * (absolute in the file) moved to the output position. Everything else — trun flags, sample flags, composition time
 * offsets (B-frames), sizes, data offsets relative to the moof — is kept byte for byte, so the samples in the mdat
 * that follows need no change. Throws BoxFormatError for a moof it cannot read, or a 32-bit tfdt the shift would
 * overflow (our files carry 64-bit ones).
 */
export function retimeMoof(moof: Buffer, retiming: Retiming): Buffer {
  const out = Buffer.from(moof);
  const root = readBoxHeader(out, 0, out.length);
  if (root === null || root.type !== 'moof' || root.end !== out.length) throw new BoxFormatError('not a whole moof box');
  for (const box of children(out, root)) {
    if (box.type === 'mfhd' && box.end - box.start >= box.headerSize + 8) out.writeUInt32BE(retiming.sequenceNumber >>> 0, box.start + box.headerSize + 4);
    if (box.type !== 'traf') continue;
    let trackId: number | undefined;
    for (const child of children(out, box)) {
      const body = child.start + child.headerSize;
      if (child.type === 'tfhd') {
        if (body + 8 > child.end) throw new BoxFormatError('truncated tfhd');
        trackId = out.readUInt32BE(body + 4);
        const flags = out.readUInt32BE(body) & 0xffffff;
        if (flags & TFHD_BASE_DATA_OFFSET) {
          if (body + 16 > child.end) throw new BoxFormatError('truncated tfhd');
          const base = readU64(out, body + 8) - retiming.fromOffset + retiming.toOffset;
          writeU64(out, body + 8, base);
        }
      } else if (child.type === 'tfdt' && trackId !== undefined) {
        shiftTfdt(out, body, child.end, retiming.shifts.get(trackId) ?? 0);
      }
    }
  }
  return out;
}

function shiftTfdt(buf: Buffer, body: number, end: number, shift: number): void {
  if (shift === 0) return;
  const version = buf[body];
  if (version === 1) {
    if (body + 12 > end) throw new BoxFormatError('truncated tfdt');
    writeU64(buf, body + 4, Math.max(0, readU64(buf, body + 4) + shift));
  } else {
    if (body + 8 > end) throw new BoxFormatError('truncated tfdt');
    const value = Math.max(0, buf.readUInt32BE(body + 4) + shift);
    if (value > 0xffffffff) throw new BoxFormatError('a 32-bit decode time (tfdt version 0) cannot hold the playback time');
    buf.writeUInt32BE(value, body + 4);
  }
}

function readU64(buf: Buffer, at: number): number {
  return buf.readUInt32BE(at) * 0x100000000 + buf.readUInt32BE(at + 4);
}

function writeU64(buf: Buffer, at: number, value: number): void {
  buf.writeUInt32BE(Math.floor(value / 0x100000000), at);
  buf.writeUInt32BE(value % 0x100000000, at + 4);
}
