// Carves one camera's fragment buffers out of shared slabs: a handful of allocations a second instead of one per picture.

export interface SlabAllocatorOptions {
  /** Bytes per slab (default 128 KiB). */
  slabBytes?: number;
}

const DEFAULT_SLAB_BYTES = 128 * 1024;
/** Regions start on 8-byte boundaries, as Buffer.allocUnsafe's own pool does. */
const ALIGN = 8;

/**
 * Native ingest makes one fragment per picture: with a fresh Buffer each, 50 cameras allocate over a thousand
 * ArrayBuffers a second, and freeing them (external memory) drives most of the garbage collector's work. A slab
 * allocator hands out views of a larger block instead; a block is freed once no view of it is left, which for a
 * camera's stream is as soon as the GOP cache, the writer and the viewers have let go of its fragments.
 *
 * Requests bigger than a quarter of a slab (keyframes) get a buffer of their own, so one large picture does not
 * strand the rest of a slab. The regions are not zeroed, like Buffer.allocUnsafe: the caller fills them.
 */
export class SlabAllocator {
  readonly slabBytes: number;
  #slab: Buffer | undefined;
  #used = 0;
  /** Blocks allocated so far (slabs and buffers of their own). */
  allocations = 0;

  constructor(opts: SlabAllocatorOptions = {}) {
    const slabBytes = opts.slabBytes ?? DEFAULT_SLAB_BYTES;
    if (!Number.isInteger(slabBytes) || slabBytes < 4096) throw new RangeError('SlabAllocator: slabBytes must be an integer >= 4096');
    this.slabBytes = slabBytes;
  }

  /** `bytes` of memory nobody else is handed (until it is garbage). */
  take(bytes: number): Buffer {
    if (bytes > this.slabBytes / 4) {
      this.allocations++;
      return Buffer.allocUnsafeSlow(bytes);
    }
    if (this.#slab === undefined || this.#used + bytes > this.slabBytes) {
      this.#slab = Buffer.allocUnsafeSlow(this.slabBytes);
      this.#used = 0;
      this.allocations++;
    }
    const start = this.#used;
    this.#used = start + ((bytes + ALIGN - 1) & ~(ALIGN - 1));
    return this.#slab.subarray(start, start + bytes);
  }
}
