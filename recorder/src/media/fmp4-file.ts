// Crash-repair scan of a fragmented MP4 file: finds the end of the init segment and of the last complete fragment.
import { open, type FileHandle } from 'node:fs/promises';
import { isPlausibleBoxType, MAX_BOX_HEADER_BYTES, readBoxHeader, type BoxHeader } from './box-reader.js';
import type { InitSegment, ParsedMoof } from './fmp4-types.js';
import { parseInitSegment } from './init-parser.js';
import { parseMoof, summarizeFragment } from './moof-parser.js';

export interface FragmentedFileScan {
  /** Byte offset after moov; 0 if there is no complete, parseable init segment. */
  initEnd: number;
  /** Byte offset after the last complete moof+mdat pair (== initEnd if none). */
  completeEnd: number;
  /** Number of complete fragments. */
  fragments: number;
  /** Seconds: decode time of the first complete fragment (NaN when there is none). */
  firstDecodeTime: number;
  /** Seconds of video in complete fragments. */
  duration: number;
  fileSize: number;
}

export interface ScanOptions {
  /** moov/moof boxes larger than this are treated as garbage (default 64 MiB). */
  maxHeaderBoxBytes?: number;
}

const WINDOW_BYTES = 16 * 1024;

/** Positioned reads through a small window, so a moof and the following mdat header usually cost one read. */
class WindowReader {
  private window = Buffer.alloc(0);
  private windowStart = 0;

  constructor(
    private readonly fh: FileHandle,
    readonly fileSize: number,
  ) {}

  /** Up to `length` bytes at `position` (fewer at end of file). */
  async read(position: number, length: number): Promise<Buffer> {
    const end = Math.min(position + length, this.fileSize);
    if (position >= this.windowStart && end <= this.windowStart + this.window.length) {
      return this.window.subarray(position - this.windowStart, end - this.windowStart);
    }
    const size = Math.min(Math.max(length, WINDOW_BYTES), this.fileSize - position);
    const buf = Buffer.alloc(Math.max(size, 0));
    let filled = 0;
    while (filled < buf.length) {
      const { bytesRead } = await this.fh.read(buf, filled, buf.length - filled, position + filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    this.window = buf.subarray(0, filled);
    this.windowStart = position;
    return this.window.subarray(0, Math.max(0, Math.min(end, position + filled) - position));
  }
}

/**
 * Scans a (possibly crash-truncated) fragmented MP4. Reads box headers and moov/moof contents only;
 * mdat payloads are skipped. Stops quietly at a truncated box, an implausible header or a box that
 * does not parse, so a garbage tail never makes the scan fail.
 */
export async function scanFragmentedFile(path: string, opts: ScanOptions = {}): Promise<FragmentedFileScan> {
  const maxHeaderBox = opts.maxHeaderBoxBytes ?? 64 * 1024 * 1024;
  const fh = await open(path, 'r');
  try {
    const fileSize = (await fh.stat()).size;
    const reader = new WindowReader(fh, fileSize);
    const scan: FragmentedFileScan = { initEnd: 0, completeEnd: 0, fragments: 0, firstDecodeTime: NaN, duration: 0, fileSize };
    let init: InitSegment | null = null;
    let initStart = 0;
    let moof: { parsed: ParsedMoof; start: number } | null = null;
    let pos = 0;
    while (pos < fileSize) {
      const header = await readHeaderAt(reader, pos);
      if (!header || header.end > fileSize) break; // truncated or garbage tail
      if (header.type === 'ftyp') {
        if (init) break; // a second init in one file is not something we repair past
        initStart = pos;
      } else if (header.type === 'moov') {
        if (init || header.size > maxHeaderBox) break;
        const data = await reader.read(initStart, header.end - initStart);
        if (data.length !== header.end - initStart) break;
        init = tryParse(() => parseInitSegment(Buffer.from(data)));
        if (!init) break;
        scan.initEnd = scan.completeEnd = header.end;
      } else if (header.type === 'moof') {
        if (!init || header.size > maxHeaderBox) break;
        const data = await reader.read(pos, header.size);
        if (data.length !== header.size) break;
        const local: BoxHeader = { ...header, start: 0, end: header.size };
        const tracks = init.tracks;
        const parsed = tryParse(() => parseMoof(data, local, tracks, pos));
        if (!parsed) break;
        moof = { parsed, start: pos };
      } else if (header.type === 'mdat') {
        if (!init || !moof || !sampleDataFits(moof.parsed, moof.start, header.end)) break;
        const summary = summarizeFragment(moof.parsed, init.tracks, init.video);
        if (scan.fragments === 0) scan.firstDecodeTime = summary.decodeTime;
        scan.fragments++;
        scan.duration += summary.duration;
        scan.completeEnd = header.end;
        moof = null;
      }
      pos = header.end;
    }
    return scan;
  } finally {
    await fh.close();
  }
}

async function readHeaderAt(reader: WindowReader, pos: number): Promise<BoxHeader | null> {
  const bytes = await reader.read(pos, MAX_BOX_HEADER_BYTES);
  const header = tryParse(() => readBoxHeader(bytes, 0, bytes.length));
  if (!header || !isPlausibleBoxType(header.type)) return null;
  // Re-base onto the file; a size-0 box runs to the end of the file.
  const size = header.toEnd ? reader.fileSize - pos : header.size;
  return { ...header, start: pos, size, end: pos + size };
}

/** Every traf's sample data (when its extent is known) must lie inside the mdat that follows. */
function sampleDataFits(moof: ParsedMoof, moofStart: number, mdatEnd: number): boolean {
  return moof.trafs.every((t) => t.dataEndFromMoof === undefined || moofStart + t.dataEndFromMoof <= mdatEnd);
}

function tryParse<T>(fn: () => T): T | null {
  try {
    return fn();
  } catch {
    return null;
  }
}
