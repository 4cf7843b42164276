// A bounded MSB-first bit reader over a byte range, for the bit-packed audio configs and LATM payloads.

/** Thrown when a read runs past the end of the range: the data is cut off. */
export class BitsExhaustedError extends Error {
  override name = 'BitsExhaustedError';
}

/**
 * Reads `buf` from bit `start` up to bit `end` (default: the whole buffer). Reads never pass `end`; one that would
 * throws BitsExhaustedError, so a parser over hostile input stops instead of reading zeros forever.
 */
export class BitCursor {
  #at: number;
  readonly #end: number;

  constructor(
    private readonly buf: Buffer,
    start = 0,
    end: number = buf.length * 8,
  ) {
    this.#at = start;
    this.#end = Math.min(end, buf.length * 8);
  }

  /** The bit position, from the start of `buf`. */
  get position(): number {
    return this.#at;
  }

  get bitsLeft(): number {
    return this.#end - this.#at;
  }

  /** Whether the position is on a byte boundary. */
  get aligned(): boolean {
    return (this.#at & 7) === 0;
  }

  /** `count` bits (at most 32) as an unsigned number. */
  read(count: number): number {
    if (count > 32) throw new RangeError(`read(${count}): at most 32 bits`);
    if (count > this.bitsLeft) throw new BitsExhaustedError(`${count} bits wanted, ${this.bitsLeft} left`);
    let value = 0;
    const buf = this.buf;
    for (let bit = this.#at, stop = this.#at + count; bit < stop; bit++) value = value * 2 + (((buf[bit >> 3] as number) >> (7 - (bit & 7))) & 1);
    this.#at += count;
    return value;
  }

  flag(): boolean {
    return this.read(1) === 1;
  }

  skip(count: number): void {
    if (count > this.bitsLeft) throw new BitsExhaustedError(`${count} bits to skip, ${this.bitsLeft} left`);
    this.#at += count;
  }

  /** Skips to the next byte boundary (ISO 14496-3 byte_alignment()). */
  alignToByte(): void {
    this.skip((8 - (this.#at & 7)) & 7);
  }

  /**
   * The next `bytes` bytes as a new Buffer (the caller's to keep): one copy when the position is on a byte boundary,
   * bit by bit otherwise.
   */
  takeBytes(bytes: number): Buffer {
    if (bytes * 8 > this.bitsLeft) throw new BitsExhaustedError(`${bytes} bytes wanted, ${this.bitsLeft} bits left`);
    if (this.aligned) {
      const start = this.#at >> 3;
      this.#at += bytes * 8;
      return Buffer.from(this.buf.subarray(start, start + bytes));
    }
    const out = Buffer.allocUnsafe(bytes);
    for (let i = 0; i < bytes; i++) out[i] = this.read(8);
    return out;
  }

  /** Bits `[from, to)` of `buf` as bytes, the last one padded with zero bits: a bit-packed structure made byte-aligned. */
  copyBits(from: number, to: number): Buffer {
    const reader = new BitCursor(this.buf, from, to);
    const out = Buffer.alloc(Math.ceil((to - from) / 8));
    for (let i = 0; reader.bitsLeft > 0; i++) {
      const count = Math.min(8, reader.bitsLeft);
      out[i] = reader.read(count) << (8 - count);
    }
    return out;
  }
}
