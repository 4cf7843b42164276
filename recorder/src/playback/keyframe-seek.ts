// Finds where a play starts in a segment file — the keyframe fragment at or before a time — reading fragment headers
// only, by bisecting the file's bytes: an hour-long file costs a few dozen small reads, not the hour's samples.
import type { InitSegment, TrackInfo } from '../media/fmp4-types.js';
import { fragmentTimes, type FragmentTimes } from './fragment-times.js';
import type { FragmentHeader, SegmentFileReader } from './segment-file-reader.js';

/** Bisection stops once the range left is this small; the rest is walked fragment by fragment (headers only). */
const WALK_BYTES = 256 * 1024;
/** Bytes looked at per read while looking for the next fragment from an arbitrary offset. */
const SCAN_BYTES = 32 * 1024;
const MOOF = Buffer.from('moof', 'latin1');

export interface SeekFile {
  reader: SegmentFileReader;
  init: InitSegment;
  lead: TrackInfo;
  /** File offset of the first fragment (after the init segment). */
  firstPos: number;
  /** Bytes that may be read. */
  limit: number;
}

export interface Seeked {
  /** File offset of the keyframe fragment. */
  offset: number;
  times: FragmentTimes;
  /** Lead decode time of the file's first fragment. */
  firstDecode: number;
}

interface Located {
  header: FragmentHeader;
  times: FragmentTimes;
}

/**
 * The last keyframe fragment whose lead decode time is at or before `target(firstDecode)` — the file's first keyframe
 * when none is — or undefined when the file has no keyframe fragment to start at.
 */
export async function seekKeyframe(file: SeekFile, target: (firstDecode: number) => number): Promise<Seeked | undefined> {
  const first = await located(file, file.firstPos);
  if (first === undefined) return undefined;
  const goal = target(first.times.decode);
  const done = (found: Located | undefined): Seeked | undefined => (found === undefined ? undefined : { offset: found.header.offset, times: found.times, firstDecode: first.times.decode });
  const firstKey = first.times.keyframe ? first : await nextKeyframe(file, first);
  if (firstKey === undefined || firstKey.times.decode > goal) return done(firstKey);
  // Invariant: `lo` is a keyframe at or before the goal; every keyframe at or after `hi` is past it.
  let lo = firstKey;
  let hi = file.limit;
  while (hi - lo.header.end > WALK_BYTES) {
    const mid = Math.floor((lo.header.end + hi) / 2);
    const after = await fragmentFrom(file, mid, hi);
    const key = after === undefined ? undefined : after.times.keyframe ? after : await nextKeyframe(file, after, hi);
    if (key === undefined || key.times.decode > goal) hi = mid;
    else lo = key;
  }
  // The last stretch, header by header.
  for (let at = lo; ; ) {
    const next = await located(file, at.header.end);
    if (next === undefined || next.times.decode > goal) break;
    if (next.times.keyframe) lo = next;
    at = next;
  }
  return done(lo);
}

async function located(file: SeekFile, offset: number): Promise<Located | undefined> {
  const header = await file.reader.fragmentHeaderAt(offset, file.limit);
  if (header === undefined) return undefined;
  const times = fragmentTimes(header.moof, header.offset, file.init, file.lead);
  return times === undefined ? undefined : { header, times };
}

/** The first keyframe fragment after `from` that starts before `before`. */
async function nextKeyframe(file: SeekFile, from: Located, before = file.limit): Promise<Located | undefined> {
  for (let at = from; ; ) {
    if (at.header.end >= before) return undefined;
    const next = await located(file, at.header.end);
    if (next === undefined) return undefined;
    if (next.times.keyframe) return next;
    at = next;
  }
}

/**
 * The first fragment that starts at or after `offset` and before `before`, found by looking for a moof box whose
 * fragment reads whole (moof, then an mdat that ends where a next box or the readable end begins): the bytes "moof"
 * inside samples do not pass for one.
 */
async function fragmentFrom(file: SeekFile, offset: number, before: number): Promise<Located | undefined> {
  for (let pos = offset; pos < before; ) {
    const bytes = await file.reader.bytesAt(pos, SCAN_BYTES + 4, file.limit);
    if (bytes.length < 8) return undefined;
    for (let i = bytes.indexOf(MOOF, 4); i !== -1; i = bytes.indexOf(MOOF, i + 1)) {
      const start = pos + i - 4;
      if (start >= before) return undefined;
      const found = await located(file, start);
      if (found !== undefined && found.header.offset === start && (await followedByBox(file, found.header.end))) return found;
    }
    pos += Math.max(1, bytes.length - 7);
  }
  return undefined;
}

/** At `offset` the readable end, or a box header the reader accepts (a next fragment or a small box before one). */
async function followedByBox(file: SeekFile, offset: number): Promise<boolean> {
  return offset === file.limit || (await file.reader.fragmentHeaderAt(offset, file.limit)) !== undefined;
}
