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
  const moof = findMoof(data);
  if (moof === undefined) return undefined;
  let earliest: number | undefined;
  forEachTfdt(data, moof.start, moof.end, (trackId, body, end) => {
    const timescale = init.tracks.find((t) => t.trackId === trackId)?.timescale;
    if (timescale === undefined || timescale <= 0 || body + 8 > end) return;
    const ticks = data[body] === 1 && body + 12 <= end ? data.readUInt32BE(body + 4) * 0x100000000 + data.readUInt32BE(body + 8) : data.readUInt32BE(body + 4);
    const seconds = ticks / timescale;
    if (earliest === undefined || seconds < earliest) earliest = seconds;
  });
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
  const box = findMoof(data);
  if (box === undefined) return [data];
  const moof = Buffer.allocUnsafe(box.end - box.start);
  data.copy(moof, 0, box.start, box.end);
  forEachTfdt(moof, 0, moof.length, (trackId, body, end) => patchTfdt(moof, body, end, offsets.get(trackId) ?? 0));
  return [data.subarray(0, box.start), moof, data.subarray(box.end)];
}

/** The first top-level moof box of a fragment, if any. */
function findMoof(data: Buffer): { start: number; end: number } | undefined {
  for (let at = 0; at + 8 <= data.length; ) {
    const end = boxEnd(data, at, data.length);
    if (data.readUInt32BE(at + 4) === MOOF) return { start: at, end };
    at = end;
  }
  return undefined;
}

/** Calls `visit` for every tfdt of the moof box at buf[start, end), with its traf's track id (from the tfhd before it). */
function forEachTfdt(buf: Buffer, start: number, end: number, visit: (trackId: number, body: number, end: number) => void): void {
  for (let traf = start + headerBytes(buf, start); traf + 8 <= end; ) {
    const trafEnd = boxEnd(buf, traf, end);
    if (buf.readUInt32BE(traf + 4) === TRAF) {
      let trackId: number | undefined;
      for (let child = traf + headerBytes(buf, traf); child + 8 <= trafEnd; ) {
        const childEnd = boxEnd(buf, child, trafEnd);
        const type = buf.readUInt32BE(child + 4);
        const body = child + headerBytes(buf, child);
        if (type === TFHD && body + 8 <= childEnd) trackId = buf.readUInt32BE(body + 4);
        else if (type === TFDT && trackId !== undefined) visit(trackId, body, childEnd);
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
