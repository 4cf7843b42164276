// Shifts a fragment's decode times (tfdt) so that each segment file starts at time zero.
import { BoxFormatError } from './box-reader.js';
import { fourccCode } from './box-writer.js';
import type { InitSegment } from './fmp4-types.js';

/** Per-track tick offsets to subtract, computed from the segment's first video decode time. */
export type TrackOffsets = Map<number, number>;

const MOOF = fourccCode('moof');
const TRAF = fourccCode('traf');
const TFHD = fourccCode('tfhd');
const TFDT = fourccCode('tfdt');

/**
 * The same offset in seconds for every track, so that audio and video stay in sync: the segment's start, or the
 * earliest decode time in its first fragment when a track starts before it (audio that arrived before the keyframe
 * travels in the keyframe's fragment). Rounded down, so no track's first sample lands below zero (clamping it
 * there would step that track's time backwards at the next fragment).
 */
export function trackOffsetsFor(init: InitSegment, startSeconds: number, firstFragment?: Buffer): TrackOffsets {
  const offsets: TrackOffsets = new Map();
  const earliest = firstFragment === undefined ? undefined : earliestDecodeSeconds(firstFragment, init);
  const from = earliest !== undefined && earliest < startSeconds ? earliest : startSeconds;
  if (!Number.isFinite(from) || from <= 0) return offsets;
  for (const track of init.tracks) {
    offsets.set(track.trackId, Math.floor(from * track.timescale));
  }
  return offsets;
}

/** The smallest tfdt of a fragment's trafs, in seconds (each by its track's timescale); undefined without any. */
export function earliestDecodeSeconds(data: Buffer, init: InitSegment): number | undefined {
  let earliest: number | undefined;
  let at = 0;
  while (at + 8 <= data.length) {
    const end = boxEnd(data, at, data.length);
    if (data.readUInt32BE(at + 4) === MOOF) {
      for (let traf = at + headerBytes(data, at); traf + 8 <= end; ) {
        const trafEnd = boxEnd(data, traf, end);
        if (data.readUInt32BE(traf + 4) === TRAF) {
          let timescale: number | undefined;
          for (let child = traf + headerBytes(data, traf); child + 8 <= trafEnd; ) {
            const childEnd = boxEnd(data, child, trafEnd);
            const type = data.readUInt32BE(child + 4);
            const body = child + headerBytes(data, child);
            if (type === TFHD && body + 8 <= childEnd) {
              const trackId = data.readUInt32BE(body + 4);
              timescale = init.tracks.find((t) => t.trackId === trackId)?.timescale;
            } else if (type === TFDT && timescale !== undefined && timescale > 0 && body + 8 <= childEnd) {
              const ticks = data[body] === 1 && body + 12 <= childEnd ? data.readUInt32BE(body + 4) * 0x100000000 + data.readUInt32BE(body + 8) : data.readUInt32BE(body + 4);
              const seconds = ticks / timescale;
              if (earliest === undefined || seconds < earliest) earliest = seconds;
            }
            child = childEnd;
          }
        }
        traf = trafEnd;
      }
      return earliest;
    }
    at = end;
  }
  return earliest;
}

/**
 * Returns the fragment bytes with every traf's baseMediaDecodeTime reduced by its track's offset
 * (never below zero). The input is not modified: it is shared with live viewers. Only the moof
 * box is copied; the returned list is meant for a vectored write.
 *
 * This runs for every fragment recorded (25 a second per camera with native ingest), so it walks the boxes by hand
 * rather than through the generic box reader: no iterator or header objects, plain numbers (a 90 kHz clock stays
 * exact in a double for thousands of years).
 */
export function rebaseFragment(data: Buffer, offsets: TrackOffsets): Buffer[] {
  if (offsets.size === 0) return [data];
  let at = 0;
  while (at + 8 <= data.length) {
    const end = boxEnd(data, at, data.length);
    if (data.readUInt32BE(at + 4) === MOOF) {
      const moof = Buffer.allocUnsafe(end - at);
      data.copy(moof, 0, at, end);
      patchMoof(moof, offsets);
      return [data.subarray(0, at), moof, data.subarray(end)];
    }
    at = end;
  }
  return [data];
}

/** Patches the tfdt of every traf of the moof box that is all of `moof`. */
function patchMoof(moof: Buffer, offsets: TrackOffsets): void {
  for (let traf = headerBytes(moof, 0); traf + 8 <= moof.length; ) {
    const trafEnd = boxEnd(moof, traf, moof.length);
    if (moof.readUInt32BE(traf + 4) === TRAF) {
      let trackId: number | undefined;
      for (let child = traf + headerBytes(moof, traf); child + 8 <= trafEnd; ) {
        const childEnd = boxEnd(moof, child, trafEnd);
        const type = moof.readUInt32BE(child + 4);
        const body = child + headerBytes(moof, child);
        if (type === TFHD && body + 8 <= childEnd) trackId = moof.readUInt32BE(body + 4);
        else if (type === TFDT && trackId !== undefined) patchTfdt(moof, body, childEnd, offsets.get(trackId) ?? 0);
        child = childEnd;
      }
    }
    traf = trafEnd;
  }
}

/** Size of the box header at `at`: 16 with a 64-bit size, else 8. */
function headerBytes(buf: Buffer, at: number): number {
  return buf.readUInt32BE(at) === 1 ? 16 : 8;
}

/** Where the box at `at` ends; it must fit within `limit`. */
function boxEnd(buf: Buffer, at: number, limit: number): number {
  const size32 = buf.readUInt32BE(at);
  let size = size32;
  if (size32 === 1) {
    if (at + 16 > limit) throw new BoxFormatError(`truncated box header at ${at}`);
    size = buf.readUInt32BE(at + 8) * 0x100000000 + buf.readUInt32BE(at + 12);
  } else if (size32 === 0) {
    size = limit - at;
  }
  if (size < (size32 === 1 ? 16 : 8) || at + size > limit) throw new BoxFormatError(`box at ${at} of ${size} bytes overruns its parent`);
  return at + size;
}

function patchTfdt(buf: Buffer, body: number, end: number, offset: number): void {
  if (offset === 0) return;
  const version = buf[body];
  if (version === 1) {
    if (body + 12 > end) throw new BoxFormatError('truncated tfdt box');
    const v = Math.max(0, buf.readUInt32BE(body + 4) * 0x100000000 + buf.readUInt32BE(body + 8) - offset);
    buf.writeUInt32BE(Math.floor(v / 0x100000000), body + 4);
    buf.writeUInt32BE(v % 0x100000000, body + 8);
  } else {
    if (body + 8 > end) throw new BoxFormatError('truncated tfdt box');
    buf.writeUInt32BE(Math.max(0, buf.readUInt32BE(body + 4) - offset), body + 4);
  }
}
