// Reads a segment file's top-level boxes in order — the init segment, then whole moof + mdat fragments — never past a limit.
import { open, type FileHandle } from 'node:fs/promises';
import { findChild, isPlausibleBoxType, MAX_BOX_HEADER_BYTES, readBoxHeader, type BoxHeader } from '../media/box-reader.js';
import type { InitSegment } from '../media/fmp4-types.js';
import { parseInitSegment } from '../media/init-parser.js';

/** One read brings this much: a sequential reader of 10 KB fragments needs a read every couple of dozen of them. */
const READ_AHEAD_BYTES = 256 * 1024;
/** What a read for a fragment's headers only brings: a moof and the mdat header after it, not the samples. */
const HEADER_READ_AHEAD_BYTES = 4 * 1024;
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

/** A fragment's moof without its samples: enough to know its times, read without the mdat's payload. */
export interface FragmentHeader {
  offset: number;
  moof: Buffer;
  end: number;
}

export class SegmentFileReader {
  readonly #fh: FileHandle;
  #window = Buffer.alloc(0);
  #windowStart = 0;
  #bytesRead = 0;

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

  /** Bytes read from the file so far (read-ahead included). */
  get bytesRead(): number {
    return this.#bytesRead;
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
    const boxes = await this.#fragmentBoxes(offset, limit, READ_AHEAD_BYTES);
    if (boxes === undefined) return undefined;
    const { moof, mdat } = boxes;
    const both = await this.#read(moof.start, mdat.end - moof.start, limit);
    if (both.length !== mdat.end - moof.start) return undefined;
    return { offset: moof.start, moof: both.subarray(0, moof.size), mdat: both.subarray(moof.size), end: mdat.end };
  }

  /**
   * Like fragmentAt, but reads the moof and the mdat's header only, never the samples: for walking a file by its
   * fragments' times. The moof is a copy (it stays valid whatever is read next).
   */
  async fragmentHeaderAt(offset: number, limit: number): Promise<FragmentHeader | undefined> {
    const boxes = await this.#fragmentBoxes(offset, limit, HEADER_READ_AHEAD_BYTES);
    if (boxes === undefined) return undefined;
    const moof = await this.#read(boxes.moof.start, boxes.moof.size, limit, HEADER_READ_AHEAD_BYTES);
    if (moof.length !== boxes.moof.size) return undefined;
    return { offset: boxes.moof.start, moof: Buffer.from(moof), end: boxes.mdat.end };
  }

  /**
   * Up to `length` bytes at `offset` as they are in the file (fewer at `limit`), read without read-ahead: for
   * looking for a fragment from an arbitrary offset. A copy.
   */
  async bytesAt(offset: number, length: number, limit: number): Promise<Buffer> {
    return Buffer.from(await this.#read(offset, Math.max(0, Math.min(length, limit - offset)), limit, 0));
  }

  /** The moof and mdat headers of the fragment at `offset` (skipping small boxes before it), both whole before `limit`. */
  async #fragmentBoxes(offset: number, limit: number, readAhead: number): Promise<{ moof: BoxHeader & { start: number; end: number }; mdat: BoxHeader & { start: number; end: number } } | undefined> {
    let pos = offset;
    for (;;) {
      const header = await this.#headerAt(pos, limit, readAhead);
      if (header === undefined) return undefined;
      if (SKIPPED_BOXES.has(header.type)) {
        pos = header.end;
        continue;
      }
      if (header.type !== 'moof' || header.size > MAX_HEADER_BOX_BYTES) return undefined;
      const mdatHeader = await this.#headerAt(header.end, limit, readAhead);
      if (mdatHeader === undefined || mdatHeader.type !== 'mdat' || mdatHeader.size > MAX_MDAT_BYTES) return undefined;
      return { moof: header, mdat: mdatHeader };
    }
  }

  /** The box header at `pos` when the whole box lies before `limit`. */
  async #headerAt(pos: number, limit: number, readAhead = READ_AHEAD_BYTES): Promise<(BoxHeader & { start: number; end: number }) | undefined> {
    if (pos + 8 > limit) return undefined;
    const bytes = await this.#read(pos, Math.min(MAX_BOX_HEADER_BYTES, limit - pos), limit, readAhead);
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
  async #read(position: number, length: number, limit: number, readAhead = READ_AHEAD_BYTES): Promise<Buffer> {
    const windowEnd = this.#windowStart + this.#window.length;
    if (position >= this.#windowStart && position + length <= windowEnd) {
      return this.#window.subarray(position - this.#windowStart, position - this.#windowStart + length);
    }
    // A fresh buffer each time: fragments handed out earlier may still be on their way to a socket.
    const buf = Buffer.allocUnsafe(Math.max(length, Math.min(readAhead, limit - position)));
    let filled = 0;
    while (filled < length) {
      const { bytesRead } = await this.#fh.read(buf, filled, buf.length - filled, position + filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
      this.#bytesRead += bytesRead;
    }
    this.#window = buf.subarray(0, filled);
    this.#windowStart = position;
    return this.#window.subarray(0, Math.min(length, filled));
  }
}
