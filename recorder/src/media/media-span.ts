// How many seconds of media an MP4 segment file holds, read from a few boxes: mvhd, or the first and last fragments.
import { close, fstat, open, read } from 'node:fs';
import { promisify } from 'node:util';
import { BoxCursor, findChild, isPlausibleBoxType, MAX_BOX_HEADER_BYTES, readBoxHeader, type BoxHeader } from './box-reader.js';
import type { TrackInfo } from './fmp4-types.js';
import { parseInitSegment } from './init-parser.js';
import { parseMoof, summarizeFragment } from './moof-parser.js';

/** The head read holds ftyp, an empty moov (about 1 KiB) and the first fragment's moof of a fragmented file. */
const HEAD_BYTES = 16 * 1024;
/** The tail read must hold the whole last fragment (moof + mdat); it grows by 4× up to the largest. */
const FIRST_TAIL_BYTES = 64 * 1024;
const MAX_TAIL_BYTES = 16 * 1024 * 1024;
const MAX_MOOV_BYTES = 16 * 1024 * 1024;
/** Top-level boxes before the moov of a progressive file (ftyp, free, mdat, …). */
const MAX_TOP_LEVEL_HOPS = 16;

interface FileReader {
  size: number;
  read(position: number, length: number): Promise<Buffer>;
}

// Plain descriptors rather than FileHandle: a walk measures thousands of files, and each costs only a few calls.
const openFd = promisify(open);
const readFd = promisify(read);
const closeFd = promisify(close);
const fstatFd = promisify(fstat);

function reader(fd: number, size: number): FileReader {
  return {
    size,
    read: async (position, length) => {
      const buf = Buffer.allocUnsafe(Math.max(0, Math.min(length, size - position)));
      let filled = 0;
      while (filled < buf.length) {
        const { bytesRead } = await readFd(fd, buf, filled, buf.length - filled, position + filled);
        if (bytesRead === 0) break;
        filled += bytesRead;
      }
      return buf.subarray(0, filled);
    },
  };
}

function tryParse<T>(fn: () => T): T | undefined {
  try {
    return fn();
  } catch {
    return undefined;
  }
}

/** The top-level box header at `position` of the file, re-based onto the file. */
async function headerAt(file: FileReader, position: number, head: Buffer): Promise<BoxHeader | undefined> {
  const bytes = position + MAX_BOX_HEADER_BYTES <= head.length ? head.subarray(position, position + MAX_BOX_HEADER_BYTES) : await file.read(position, MAX_BOX_HEADER_BYTES);
  const h = tryParse(() => readBoxHeader(bytes, 0, bytes.length));
  if (h === undefined || h === null || !isPlausibleBoxType(h.type)) return undefined;
  const size = h.toEnd ? file.size - position : h.size;
  return { ...h, start: position, size, end: position + size };
}

/** Seconds from mvhd (a progressive file's duration); undefined when unknown. */
function mvhdSeconds(moov: Buffer): number | undefined {
  const root = tryParse(() => readBoxHeader(moov, 0, moov.length));
  const mvhd = root ? tryParse(() => findChild(moov, root, 'mvhd')) : undefined;
  if (mvhd === undefined) return undefined;
  return tryParse(() => {
    const cur = BoxCursor.body(moov, mvhd);
    const { version } = cur.fullBox();
    cur.skip(version === 1 ? 16 : 8);
    const timescale = cur.u32();
    const duration = version === 1 ? cur.u64() : cur.u32();
    const unknown = version === 1 ? duration >= Number.MAX_SAFE_INTEGER : duration === 0xffffffff;
    return timescale > 0 && !unknown ? duration / timescale : undefined;
  });
}

/** Decode time and end (seconds) of the video fragment whose moof starts at `at` in `buf` (file offset `base + at`). */
function fragmentTimes(buf: Buffer, at: number, base: number, fileSize: number, tracks: TrackInfo[], video: TrackInfo | undefined): { decode: number; end: number } | undefined {
  const moof = tryParse(() => readBoxHeader(buf, at, buf.length));
  if (!moof || moof.type !== 'moof' || moof.size < 16 || moof.end + 8 > buf.length) return undefined;
  const mdat = tryParse(() => readBoxHeader(buf, moof.end, buf.length));
  if (!mdat || mdat.type !== 'mdat') return undefined;
  const mdatEnd = mdat.toEnd ? fileSize : base + mdat.end;
  if (mdatEnd > fileSize) return undefined; // the last fragment was cut short: take the one before
  const parsed = tryParse(() => parseMoof(buf, moof, tracks, base + at));
  if (!parsed || !parsed.trafs.every((t) => t.dataEndFromMoof === undefined || base + at + t.dataEndFromMoof <= mdatEnd)) return undefined;
  const s = summarizeFragment(parsed, tracks, video);
  return Number.isFinite(s.decodeTime) && s.sampleCount > 0 ? { decode: s.decodeTime, end: s.decodeTime + s.duration } : undefined;
}

/** The end of the last complete fragment, searched backwards from the end of the file. */
async function lastFragmentEnd(file: FileReader, notBefore: number, tracks: TrackInfo[], video: TrackInfo | undefined): Promise<number | undefined> {
  for (let window = FIRST_TAIL_BYTES; ; window *= 4) {
    const from = Math.max(notBefore, file.size - window);
    const buf = await file.read(from, file.size - from);
    for (let i = buf.lastIndexOf('moof'); i >= 4; i = buf.lastIndexOf('moof', i - 1)) {
      const times = fragmentTimes(buf, i - 4, from, file.size, tracks, video);
      if (times !== undefined) return times.end;
    }
    if (from === notBefore || window >= MAX_TAIL_BYTES) return undefined;
  }
}

/** Where a file's video starts and ends, in seconds of the file's own time. */
export interface VideoSpan {
  start: number;
  end: number;
}

/** A segment file's media: seconds for a progressive file (mvhd), or the video's span for a fragmented one. */
type FileMedia = { kind: 'progressive'; seconds: number | undefined } | ({ kind: 'fragmented' } & VideoSpan);

async function mediaOf(file: FileReader): Promise<FileMedia | undefined> {
  const head = await file.read(0, HEAD_BYTES);
  let pos = 0;
  for (let hop = 0; hop < MAX_TOP_LEVEL_HOPS && pos < file.size; hop++) {
    const box = await headerAt(file, pos, head);
    if (box === undefined || box.end > file.size) return undefined;
    if (box.type === 'moof') return undefined; // fragments before any moov: not a file we wrote
    if (box.type !== 'moov') {
      pos = box.end;
      continue;
    }
    if (box.size > MAX_MOOV_BYTES) return undefined;
    const moov = box.end <= head.length ? head.subarray(box.start, box.end) : await file.read(box.start, box.size);
    const root = tryParse(() => readBoxHeader(moov, 0, moov.length));
    if (!root || root.end !== moov.length) return undefined;
    if (tryParse(() => findChild(moov, root, 'mvex')) === undefined) return { kind: 'progressive', seconds: mvhdSeconds(moov) };
    // Fragmented: the span runs from the first fragment's decode time to the end of the last complete one.
    const init = tryParse(() => parseInitSegment(Buffer.from(moov)));
    if (init === undefined) return undefined;
    let first = fragmentTimes(head.subarray(box.end), 0, box.end, file.size, init.tracks, init.video);
    if (first === undefined && head.length < file.size) first = fragmentTimes(await file.read(box.end, HEAD_BYTES), 0, box.end, file.size, init.tracks, init.video);
    if (first === undefined) return undefined;
    const end = await lastFragmentEnd(file, box.end, init.tracks, init.video);
    return end === undefined ? undefined : { kind: 'fragmented', start: first.decode, end: Math.max(first.decode, end) };
  }
  return undefined;
}

async function withFile<T>(path: string, knownSize: number | undefined, fn: (file: FileReader) => Promise<T>): Promise<T | undefined> {
  let fd: number | undefined;
  try {
    fd = await openFd(path, 'r');
    const size = knownSize ?? (await fstatFd(fd)).size;
    return await fn(reader(fd, size));
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) await closeFd(fd).catch(() => undefined);
  }
}

/**
 * Seconds of media in a segment file: mvhd's duration for a progressive MP4; for a fragmented one, from the first
 * fragment's decode time to the last complete fragment's decode time + duration (a cut-off tail is ignored). Reads
 * the head and the tail of the file only, never the samples. Undefined when the file does not say (no moov, not
 * an MP4, no complete fragment); the caller falls back to the file's mtime. `knownSize` (from a stat the caller
 * made) saves a call; a file that grew since is read up to that size.
 */
export async function readMediaSeconds(path: string, knownSize?: number): Promise<number | undefined> {
  const media = await withFile(path, knownSize, mediaOf);
  if (media === undefined) return undefined;
  return media.kind === 'progressive' ? media.seconds : media.end - media.start;
}

/**
 * Where a fragmented segment file's video starts and ends, in seconds of the file's own time (the video track leads;
 * its first picture may start after the file's zero when audio came first). Undefined for a progressive file or one
 * that does not say. Reads the head and the tail of the file only.
 */
export async function readVideoSpan(path: string): Promise<VideoSpan | undefined> {
  const media = await withFile(path, undefined, mediaOf);
  return media?.kind === 'fragmented' ? { start: media.start, end: media.end } : undefined;
}
