// Incremental fragmented-MP4 stream parser (ffmpeg stdout): emits the init segment and each moof+mdat fragment.
import { isPlausibleBoxType, MAX_BOX_HEADER_BYTES, printable, readBoxHeader, type BoxHeader } from './box-reader.js';
import { ChunkQueue, joinSlices } from './chunk-queue.js';
import type { InitSegment, MediaFragment, ParsedMoof } from './fmp4-types.js';
import { parseInitSegment } from './init-parser.js';
import { parseMoof, summarizeFragment } from './moof-parser.js';

export interface Fmp4StreamHandlers {
  onInit(init: InitSegment): void;
  onFragment(fragment: MediaFragment): void;
  /** Called once per failure; the parser then ignores input until reset(). */
  onError(err: Error): void;
}

export interface Fmp4StreamParserOptions {
  /** Largest accepted top-level box (default 64 MiB); a larger one is reported through onError. */
  maxBoxBytes?: number;
}

export const DEFAULT_MAX_BOX_BYTES = 64 * 1024 * 1024;

interface PendingMoof {
  parts: Buffer[]; // prefix boxes, the moof, and any box between moof and mdat
  bytes: number;
  parsed: ParsedMoof;
}

type Emit = () => void;

/** Appends without spreading into call arguments (a box fed 1 byte at a time has many slices). */
function appendAll(target: Buffer[], slices: readonly Buffer[]): void {
  for (const slice of slices) target.push(slice);
}

/**
 * Splits an fMP4 byte stream into its init segment (ftyp+moov) and media fragments (moof+mdat).
 * Input may be chunked arbitrarily; every byte is copied once into the emitted Buffer, so the cost is
 * O(n) regardless of chunk sizes. Parse errors are fatal until reset(); exceptions thrown by the
 * handlers propagate out of push() after the parser state has been updated (the remaining input is
 * processed on the next push).
 */
export class Fmp4StreamParser {
  private readonly maxBoxBytes: number;
  private readonly queue = new ChunkQueue();
  private header: BoxHeader | null = null;
  private streamOffset = 0;
  private failed = false;
  private init: InitSegment | null = null;
  private initParts: Buffer[] | null = null;
  private initBytes = 0;
  private prefix: Buffer[] = [];
  private prefixBytes = 0;
  private moof: PendingMoof | null = null;

  constructor(
    private readonly handlers: Fmp4StreamHandlers,
    opts: Fmp4StreamParserOptions = {},
  ) {
    this.maxBoxBytes = opts.maxBoxBytes ?? DEFAULT_MAX_BOX_BYTES;
  }

  /** The most recent init segment since the last reset(), if any. */
  get currentInit(): InitSegment | null {
    return this.init;
  }

  /** Bytes received but not yet emitted as part of an init segment or fragment. */
  get bufferedBytes(): number {
    return this.queue.length + this.prefixBytes + this.initBytes + (this.moof?.bytes ?? 0);
  }

  push(chunk: Buffer): void {
    if (this.failed) return;
    this.queue.push(chunk);
    while (!this.failed) {
      let emit: Emit | null;
      try {
        const box = this.nextBox();
        if (!box) return;
        emit = this.handleBox(box.header, box.slices, box.offset);
      } catch (err) {
        this.fail(err instanceof Error ? err : new Error(String(err)));
        return;
      }
      if (emit) emit();
    }
  }

  /** Forgets all buffered and partial state, including the init segment (e.g. a new ffmpeg process). */
  reset(): void {
    this.queue.clear();
    this.header = null;
    this.streamOffset = 0;
    this.failed = false;
    this.init = null;
    this.clearPartial();
  }

  private clearPartial(): void {
    this.initParts = null;
    this.initBytes = 0;
    this.prefix = [];
    this.prefixBytes = 0;
    this.moof = null;
  }

  private fail(err: Error): void {
    this.failed = true;
    this.queue.clear();
    this.header = null;
    this.clearPartial();
    this.handlers.onError(err);
  }

  /** Returns the next complete top-level box, or null when more input is needed. */
  private nextBox(): { header: BoxHeader; slices: Buffer[]; offset: number } | null {
    if (!this.header) {
      if (this.queue.length < 8) return null;
      const peeked = this.queue.peek(MAX_BOX_HEADER_BYTES);
      const header = readBoxHeader(peeked, 0, peeked.length);
      if (!header) return null;
      const where = `at stream offset ${this.streamOffset}`;
      if (!isPlausibleBoxType(header.type)) {
        throw new Error(`invalid box type '${printable(header.type)}' ${where}: stream is corrupt or out of sync`);
      }
      if (header.toEnd) throw new Error(`box '${header.type}' ${where} has size 0 (to end of file), unsupported in a stream`);
      if (header.size > this.maxBoxBytes) {
        throw new Error(`box '${header.type}' ${where} is ${header.size} bytes, larger than maxBoxBytes ${this.maxBoxBytes}`);
      }
      this.header = header;
    }
    const header = this.header;
    if (this.queue.length < header.size) return null;
    this.header = null;
    const offset = this.streamOffset;
    this.streamOffset += header.size;
    return { header, slices: this.queue.take(header.size), offset };
  }

  private handleBox(header: BoxHeader, slices: Buffer[], offset: number): Emit | null {
    switch (header.type) {
      case 'ftyp':
        // Start of a (new) init segment; anything partial from before belongs to a previous stream.
        this.init = null;
        this.clearPartial();
        this.initParts = slices;
        this.initBytes = header.size;
        return null;
      case 'moov':
        return this.onMoov(slices);
      case 'moof':
        this.onMoof(header, slices, offset);
        return null;
      case 'mdat':
        return this.onMdat(header, slices);
      case 'mfra':
        return null; // random-access trailer: nothing to deliver
      default:
        this.onOtherBox(header, slices);
        return null;
    }
  }

  private onMoov(slices: Buffer[]): Emit {
    const data = joinSlices(this.initParts ? [...this.initParts, ...slices] : slices);
    this.clearPartial();
    const init = parseInitSegment(data);
    this.init = init;
    return () => this.handlers.onInit(init);
  }

  private onMoof(header: BoxHeader, slices: Buffer[], offset: number): void {
    if (this.initParts) throw new Error(`moof at stream offset ${offset} before the moov box`);
    if (!this.init) throw new Error(`moof at stream offset ${offset} before any init segment`);
    if (this.moof) throw new Error(`moof at stream offset ${offset} follows a moof without mdat`);
    const data = joinSlices(slices, header.size);
    const moofHeader: BoxHeader = { ...header, start: 0, end: header.size };
    const parsed = parseMoof(data, moofHeader, this.init.tracks, offset);
    this.moof = { parts: [...this.prefix, data], bytes: this.prefixBytes + header.size, parsed };
    this.prefix = [];
    this.prefixBytes = 0;
  }

  private onMdat(header: BoxHeader, slices: Buffer[]): Emit {
    const moof = this.moof;
    const init = this.init;
    if (!moof || !init) throw new Error(`mdat at stream offset ${this.streamOffset - header.size} without a preceding moof`);
    this.moof = null;
    const data = joinSlices([...moof.parts, ...slices], moof.bytes + header.size);
    const summary = summarizeFragment(moof.parsed, init.tracks, init.video);
    const fragment: MediaFragment = {
      data,
      keyframe: summary.keyframe,
      decodeTime: summary.decodeTime,
      duration: summary.duration,
      sequenceNumber: moof.parsed.sequenceNumber,
      sampleCount: summary.sampleCount,
    };
    return () => this.handlers.onFragment(fragment);
  }

  /** styp, sidx, prft, emsg, free, skip, uuid, ...: kept with the init or fragment they belong to. */
  private onOtherBox(header: BoxHeader, slices: Buffer[]): void {
    if (this.initParts) {
      appendAll(this.initParts, slices);
      this.initBytes += header.size;
      if (this.initBytes > this.maxBoxBytes) throw new Error(`init segment exceeds maxBoxBytes ${this.maxBoxBytes}`);
    } else if (this.moof) {
      appendAll(this.moof.parts, slices);
      this.moof.bytes += header.size;
      if (this.moof.bytes > this.maxBoxBytes) throw new Error(`fragment header boxes exceed maxBoxBytes ${this.maxBoxBytes}`);
    } else {
      appendAll(this.prefix, slices);
      this.prefixBytes += header.size;
      if (this.prefixBytes > this.maxBoxBytes) throw new Error(`boxes before moof exceed maxBoxBytes ${this.maxBoxBytes}`);
    }
  }
}
