// FIFO of received Buffers that hands out byte ranges as zero-copy slices (amortised O(1) per chunk).

export class ChunkQueue {
  private chunks: Buffer[] = [];
  private head = 0; // index of the first live chunk
  private headOffset = 0; // bytes already consumed from chunks[head]
  private total = 0;

  /** Bytes currently buffered. */
  get length(): number {
    return this.total;
  }

  push(chunk: Buffer): void {
    if (chunk.length === 0) return;
    this.chunks.push(chunk);
    this.total += chunk.length;
  }

  /** Copies up to `n` bytes from the front without consuming them. */
  peek(n: number): Buffer {
    const want = Math.min(n, this.total);
    const out = Buffer.allocUnsafe(want);
    let copied = 0;
    let offset = this.headOffset;
    for (let i = this.head; copied < want && i < this.chunks.length; i++) {
      const chunk = this.chunks[i];
      if (!chunk) break;
      copied += chunk.copy(out, copied, offset, Math.min(chunk.length, offset + want - copied));
      offset = 0;
    }
    return out;
  }

  /** Removes `n` bytes from the front and returns them as slices of the original chunks. */
  take(n: number): Buffer[] {
    if (n > this.total) throw new RangeError(`take(${n}) with only ${this.total} bytes buffered`);
    const out: Buffer[] = [];
    let remaining = n;
    while (remaining > 0) {
      const chunk = this.chunks[this.head];
      if (!chunk) throw new RangeError('chunk queue underflow');
      const available = chunk.length - this.headOffset;
      if (available <= remaining) {
        out.push(this.headOffset === 0 ? chunk : chunk.subarray(this.headOffset));
        remaining -= available;
        this.chunks[this.head] = EMPTY;
        this.head++;
        this.headOffset = 0;
      } else {
        out.push(chunk.subarray(this.headOffset, this.headOffset + remaining));
        this.headOffset += remaining;
        remaining = 0;
      }
    }
    this.total -= n;
    this.compact();
    return out;
  }

  clear(): void {
    this.chunks = [];
    this.head = 0;
    this.headOffset = 0;
    this.total = 0;
  }

  private compact(): void {
    if (this.head === this.chunks.length) {
      this.chunks = [];
      this.head = 0;
    } else if (this.head > 1024 && this.head * 2 > this.chunks.length) {
      this.chunks = this.chunks.slice(this.head);
      this.head = 0;
    }
  }
}

const EMPTY = Buffer.alloc(0);

/**
 * One Buffer holding the slices in order. When they are consecutive views of one received chunk
 * (a fragment that arrived in a single read) that view is returned without copying; otherwise the
 * bytes are copied. Received chunks are never reused by the stream, so a view is safe to keep.
 */
export function joinSlices(slices: readonly Buffer[], totalLength?: number): Buffer {
  const first = slices[0];
  if (first !== undefined) {
    let end = first.byteOffset + first.length;
    let contiguous = true;
    for (let i = 1; i < slices.length && contiguous; i++) {
      const s = slices[i] as Buffer;
      contiguous = s.buffer === first.buffer && s.byteOffset === end;
      end += s.length;
    }
    if (contiguous) return Buffer.from(first.buffer, first.byteOffset, end - first.byteOffset);
  }
  return Buffer.concat(slices, totalLength);
}
