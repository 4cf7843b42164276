// MSB-first bit reader over H.264/H.265 RBSP: strips emulation-prevention bytes, reads u(n), ue(v), se(v).

/** Raised when a parameter set is shorter than its syntax says or holds impossible values. */
export class BitstreamError extends Error {
  override name = 'BitstreamError';
}

/**
 * The RBSP of a NAL unit payload: every 0x03 that follows two zero bytes is an emulation-prevention
 * byte, not data. Returns `nal` itself (no copy) when it has none, which is the common case.
 */
export function unescapeRbsp(nal: Buffer): Buffer {
  let first = -1;
  for (let i = 2; i < nal.length; i++) {
    if (nal[i] === 3 && nal[i - 1] === 0 && nal[i - 2] === 0) {
      first = i;
      break;
    }
  }
  if (first < 0) return nal;
  const out = Buffer.allocUnsafe(nal.length);
  nal.copy(out, 0, 0, first);
  let n = first;
  let zeros = 0;
  for (let i = first + 1; i < nal.length; i++) {
    const b = nal[i] ?? 0;
    // A 03 after 00 00 is dropped; the zero run restarts after it, so 00 00 03 00 00 03 drops both.
    if (b === 3 && zeros >= 2) {
      zeros = 0;
      continue;
    }
    zeros = b === 0 ? zeros + 1 : 0;
    out[n++] = b;
  }
  return out.subarray(0, n);
}

export class BitReader {
  private readonly data: Buffer;
  private bit = 0;

  /** `nal` is escaped NAL data (emulation-prevention bytes still in); `skipBytes` skips the NAL header. */
  constructor(nal: Buffer, skipBytes = 0) {
    this.data = unescapeRbsp(nal);
    this.bit = skipBytes * 8;
    if (this.bit > this.data.length * 8) throw new BitstreamError('NAL unit shorter than its header');
  }

  get bitsLeft(): number {
    return this.data.length * 8 - this.bit;
  }

  /** u(n) for n <= 32, as an unsigned number. */
  u(n: number): number {
    if (n > 32) throw new RangeError(`u(${n}): at most 32 bits`);
    if (n > this.bitsLeft) throw new BitstreamError('read past the end of the RBSP');
    let v = 0;
    for (let i = 0; i < n; i++, this.bit++) {
      // Multiplication, not <<, so 32-bit values stay positive.
      v = v * 2 + (((this.data[this.bit >> 3] ?? 0) >> (7 - (this.bit & 7))) & 1);
    }
    return v;
  }

  flag(): boolean {
    return this.u(1) === 1;
  }

  skip(n: number): void {
    if (n > this.bitsLeft) throw new BitstreamError('skip past the end of the RBSP');
    this.bit += n;
  }

  /** Exp-Golomb ue(v). Values need at most 32 leading zeros; more means corrupt data. */
  ue(): number {
    let zeros = 0;
    while (this.u(1) === 0) {
      if (++zeros > 32) throw new BitstreamError('Exp-Golomb code longer than 32 bits');
    }
    return 2 ** zeros - 1 + this.u(zeros);
  }

  /** Signed Exp-Golomb se(v): 1, -1, 2, -2, ... */
  se(): number {
    const k = this.ue();
    return k % 2 === 1 ? (k + 1) / 2 : 0 - k / 2; // 0 - 0 is +0, -(0) would be -0
  }
}
