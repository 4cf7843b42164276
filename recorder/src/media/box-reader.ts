// ISO BMFF box primitives: box headers (32-bit, 64-bit largesize, size 0, uuid), FullBox fields, child iteration, bounded cursor.

/** Raised for structurally invalid box data (bad sizes, reads past a box end). */
export class BoxFormatError extends Error {
  override name = 'BoxFormatError';
}

export interface BoxHeader {
  /** Four-character code, decoded as latin1. */
  type: string;
  /** Offset of the first header byte. */
  start: number;
  /** 8, 16 (largesize) or +16 for a 'uuid' box's usertype. */
  headerSize: number;
  /** Total box size including the header. For size==0 boxes this is `limit - start`. */
  size: number;
  /** start + size. */
  end: number;
  /** The box declared size 0: it extends to the end of its container (or file/stream). */
  toEnd: boolean;
}

/** Largest header we ever need to see: 8 + 8 (largesize) + 16 (uuid usertype). */
export const MAX_BOX_HEADER_BYTES = 32;

/**
 * Reads the box header at `offset`. Returns null when `buf` (up to `limit`) does not yet hold the
 * whole header. Throws BoxFormatError for impossible sizes. The returned box may extend past
 * `limit`; callers decide whether that means "truncated" or "wait for more".
 */
export function readBoxHeader(buf: Buffer, offset: number, limit: number = buf.length): BoxHeader | null {
  if (offset + 8 > limit) return null;
  const size32 = buf.readUInt32BE(offset);
  const type = buf.toString('latin1', offset + 4, offset + 8);
  let headerSize = 8;
  let size: number;
  let toEnd = false;
  if (size32 === 1) {
    if (offset + 16 > limit) return null;
    const large = buf.readBigUInt64BE(offset + 8);
    if (large > BigInt(Number.MAX_SAFE_INTEGER)) throw new BoxFormatError(`box '${printable(type)}' largesize ${large} is too large`);
    size = Number(large);
    headerSize = 16;
  } else if (size32 === 0) {
    toEnd = true;
    size = -1;
  } else {
    size = size32;
  }
  if (type === 'uuid') headerSize += 16;
  if (offset + headerSize > limit) return null;
  if (toEnd) size = Math.max(limit - offset, headerSize);
  if (size < headerSize) throw new BoxFormatError(`box '${printable(type)}' at ${offset} has invalid size ${size}`);
  return { type, start: offset, headerSize, size, end: offset + size, toEnd };
}

/** True when all four type bytes are printable ASCII (a cheap sanity check for garbage). */
export function isPlausibleBoxType(type: string): boolean {
  if (type.length !== 4) return false;
  for (let i = 0; i < 4; i++) {
    const c = type.charCodeAt(i);
    if (c < 0x20 || c > 0x7e) return false;
  }
  return true;
}

export function printable(type: string): string {
  return type.replace(/[^\x20-\x7e]/g, '?');
}

/** Reads the FullBox version (8 bits) and flags (24 bits) at `offset`. */
export function readFullBoxHeader(buf: Buffer, offset: number, end: number = buf.length): { version: number; flags: number } {
  if (offset + 4 > end) throw new BoxFormatError(`truncated FullBox header at ${offset}`);
  const word = buf.readUInt32BE(offset);
  return { version: word >>> 24, flags: word & 0xffffff };
}

/**
 * Iterates the child boxes stored in [start, end). A child that overruns `end` is a format error
 * (the parent was complete, so its children must be too).
 */
export function* iterateBoxes(buf: Buffer, start: number, end: number): Generator<BoxHeader> {
  let offset = start;
  while (offset + 8 <= end) {
    const header = readBoxHeader(buf, offset, end);
    if (!header) throw new BoxFormatError(`truncated box header at ${offset}`);
    if (header.end > end) throw new BoxFormatError(`box '${printable(header.type)}' at ${offset} overruns its parent`);
    yield header;
    offset = header.end;
  }
}

/** Children of the box `parent`, skipping `skip` bytes of parent payload after its header. */
export function children(buf: Buffer, parent: BoxHeader, skip = 0): Generator<BoxHeader> {
  return iterateBoxes(buf, parent.start + parent.headerSize + skip, parent.end);
}

/** First child of `parent` with the given type, or undefined. */
export function findChild(buf: Buffer, parent: BoxHeader, type: string, skip = 0): BoxHeader | undefined {
  for (const child of children(buf, parent, skip)) {
    if (child.type === type) return child;
  }
  return undefined;
}

/** Sequential big-endian reader over [pos, end) that throws BoxFormatError instead of over-reading. */
export class BoxCursor {
  constructor(
    readonly buf: Buffer,
    public pos: number,
    readonly end: number,
    private readonly what: string,
  ) {}

  static body(buf: Buffer, box: BoxHeader): BoxCursor {
    return new BoxCursor(buf, box.start + box.headerSize, box.end, box.type);
  }

  get remaining(): number {
    return this.end - this.pos;
  }

  need(n: number): void {
    if (n < 0 || this.pos + n > this.end) throw new BoxFormatError(`truncated '${printable(this.what)}' box`);
  }

  skip(n: number): void {
    this.need(n);
    this.pos += n;
  }

  u8(): number {
    this.need(1);
    return this.buf.readUInt8(this.pos++);
  }

  u16(): number {
    this.need(2);
    const v = this.buf.readUInt16BE(this.pos);
    this.pos += 2;
    return v;
  }

  u32(): number {
    this.need(4);
    const v = this.buf.readUInt32BE(this.pos);
    this.pos += 4;
    return v;
  }

  i32(): number {
    this.need(4);
    const v = this.buf.readInt32BE(this.pos);
    this.pos += 4;
    return v;
  }

  /** 64-bit unsigned; values beyond 2^53 lose precision (fine for timestamps and offsets). */
  u64(): number {
    this.need(8);
    const v = this.buf.readBigUInt64BE(this.pos);
    this.pos += 8;
    return Number(v);
  }

  fullBox(): { version: number; flags: number } {
    const word = this.u32();
    return { version: word >>> 24, flags: word & 0xffffff };
  }

  fourcc(): string {
    this.need(4);
    const s = this.buf.toString('latin1', this.pos, this.pos + 4);
    this.pos += 4;
    return s;
  }
}
