// Reads a segment file's top-level boxes in order — the init segment, then whole moof + mdat fragments — never past a limit.
import { open, type FileHandle } from 'node:fs/promises';
import { findChild, isPlausibleBoxType, MAX_BOX_HEADER_BYTES, readBoxHeader, type BoxHeader } from '../media/box-reader.js';
import type { InitSegment } from '../media/fmp4-types.js';
import { parseInitSegment } from '../media/init-parser.js';

/** One read brings this much: a sequential reader of 10 KB fragments needs a read every couple of dozen of them. */
const READ_AHEAD_BYTES = 256 * 1024;
/** A moov or moof larger than this is not one we wrote. */
const MAX_HEADER_BOX_BYTES = 16 * 1024 * 1024;
/** A fragment's samples larger than this are refused rather than held in memory (a 4K keyframe is ~2 MB). */
const MAX_MDAT_BYTES = 256 * 1024 * 1024;
/** Top-level boxes allowed between fragments and skipped: segment types, indexes, producer times, padding, events. */
const SKIPPED_BOXES = new Set(['styp', 'sidx', 'ssix', 'prft', 'free', 'skip', 'emsg', 'uuid']);

export type InitRead =
  | { kind: 'fragmented'; init: InitSegment; end: number }
  /** A progressive MP4 (record.format mp4): its samples are described in a moov at the end, not in fragments. */
  | { kind: 'progressive' }
  /** No whole init segment within the limit (an empty file, or one not written that far yet), or not an MP4. */
  | { kind: 'incomplete' };

export interface FileFragment {
  /** File offset of the moof. */
  offset: number;
  /** The moof box: a view of the reader's memory, to be copied before it is changed. */
  moof: Buffer;
  /** The mdat box, header included. */
  mdat: Buffer;
  /** File offset after the mdat: where the next fragment starts. */
  end: number;
}

export class SegmentFileReader {
  readonly #fh: FileHandle;
  #window = Buffer.alloc(0);
  #windowStart = 0;

  private constructor(fh: FileHandle) {
    this.#fh = fh;
  }

  static async open(path: string): Promise<SegmentFileReader> {
    return new SegmentFileReader(await open(path, 'r'));
  }

  /** The file's size now (it grows while it is being written). */
  async size(): Promise<number> {
    return (await this.#fh.stat()).size;
  }

  async close(): Promise<void> {
    await this.#fh.close().catch(() => undefined);
  }

  /** The init segment (ftyp … moov) at the start of the file, reading no byte at or past `limit`. */
  async readInit(limit: number): Promise<InitRead> {
    let pos = 0;
    for (let hop = 0; hop < 8; hop++) {
      const header = await this.#headerAt(pos, limit);
      if (header === undefined) return { kind: 'incomplete' };
      if (header.type === 'mdat' || header.type === 'moof') return header.type === 'mdat' ? { kind: 'progressive' } : { kind: 'incomplete' };
      if (header.type === 'moov') {
        if (header.size > MAX_HEADER_BOX_BYTES) return { kind: 'incomplete' };
        const data = Buffer.from(await this.#read(0, header.end, limit));
        const moov = readBoxHeader(data, header.start, data.length);
        if (moov === null || findChild(data, moov, 'mvex') === undefined) return { kind: 'progressive' };
        try {
          return { kind: 'fragmented', init: parseInitSegment(data), end: header.end };
        } catch {
          return { kind: 'incomplete' };
        }
      }
      pos = header.end;
    }
    return { kind: 'incomplete' };
  }

  /**
   * The whole fragment (moof + mdat) that starts at `offset`, skipping the small boxes that may sit before it;
   * undefined when none ends at or before `limit` (not written yet, cut short by a crash, or something else follows).
   */
  async fragmentAt(offset: number, limit: number): Promise<FileFragment | undefined> {
    let pos = offset;
    for (;;) {
      const header = await this.#headerAt(pos, limit);
      if (header === undefined) return undefined;
      if (SKIPPED_BOXES.has(header.type)) {
        pos = header.end;
        continue;
      }
      if (header.type !== 'moof' || header.size > MAX_HEADER_BOX_BYTES) return undefined;
      const mdatHeader = await this.#headerAt(header.end, limit);
      if (mdatHeader === undefined || mdatHeader.type !== 'mdat' || mdatHeader.size > MAX_MDAT_BYTES) return undefined;
      const both = await this.#read(header.start, mdatHeader.end - header.start, limit);
      if (both.length !== mdatHeader.end - header.start) return undefined;
      return { offset: header.start, moof: both.subarray(0, header.size), mdat: both.subarray(header.size), end: mdatHeader.end };
    }
  }

  /** The box header at `pos` when the whole box lies before `limit`. */
  async #headerAt(pos: number, limit: number): Promise<BoxHeader | undefined> {
    if (pos + 8 > limit) return undefined;
    const bytes = await this.#read(pos, Math.min(MAX_BOX_HEADER_BYTES, limit - pos), limit);
    let header: BoxHeader | null;
    try {
      header = readBoxHeader(bytes, 0, bytes.length);
    } catch {
      return undefined;
    }
    // A size-0 box would run to the end of a file that is still growing: never one we can take whole.
    if (header === null || header.toEnd || !isPlausibleBoxType(header.type)) return undefined;
    const end = pos + header.size;
    return end > limit ? undefined : { ...header, start: pos, end };
  }

  /**
   * Up to `length` bytes at `position` (fewer at the end of the file), through a read-ahead window that never holds a
   * byte at or past `limit`: past it a file being written may show half a write, which a later read must not reuse.
   */
  async #read(position: number, length: number, limit: number): Promise<Buffer> {
    const windowEnd = this.#windowStart + this.#window.length;
    if (position >= this.#windowStart && position + length <= windowEnd) {
      return this.#window.subarray(position - this.#windowStart, position - this.#windowStart + length);
    }
    // A fresh buffer each time: fragments handed out earlier may still be on their way to a socket.
    const buf = Buffer.allocUnsafe(Math.max(length, Math.min(READ_AHEAD_BYTES, limit - position)));
    let filled = 0;
    while (filled < length) {
      const { bytesRead } = await this.#fh.read(buf, filled, buf.length - filled, position + filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    this.#window = buf.subarray(0, filled);
    this.#windowStart = position;
    return this.#window.subarray(0, Math.min(length, filled));
  }
}
