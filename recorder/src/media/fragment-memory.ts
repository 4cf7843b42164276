// One camera's fragment memory: views carved from blocks, and each block reused once nobody holds its bytes any more.

/**
 * Whoever keeps a fragment's bytes after it is published says so, so that its memory is reused only when nobody
 * does. A fragment without a lease (ffmpeg ingest, tests) is plain garbage-collected memory.
 */
export interface FragmentLease {
  /** Keeps the bytes from being reused until the returned function is called; calling that again does nothing. */
  hold(): () => void;
  /** The bytes go where nobody says when they are done with them (a live viewer's socket): never reuse them. */
  keepForever(): void;
}

export interface FragmentMemoryOptions {
  /** Bytes per slab, the block small fragments are carved from (default 128 KiB). */
  slabBytes?: number;
  /** Bytes of released blocks kept for reuse, at most (default 1 MiB); the rest is left to the garbage collector. */
  poolBytes?: number;
  /**
   * Fills a block with 0xEE as soon as nobody holds it: a holder that let go too early then shows as broken bytes in
   * what it wrote or sent, instead of as an unlikely race (tests).
   */
  poison?: boolean;
}

export interface TakenMemory {
  /** `bytes` long; not zeroed. */
  data: Buffer;
  /** The lease of the block `data` was carved from. */
  lease: FragmentLease;
}

const DEFAULT_SLAB_BYTES = 128 * 1024;
const DEFAULT_POOL_BYTES = 1024 * 1024;
/** Regions start on 8-byte boundaries, as Buffer.allocUnsafe's own pool does. */
const ALIGN = 8;
/** A block of its own is sized up to a multiple of this, so that the next large fragment is likely to fit it. */
const LARGE_STEP = 32 * 1024;
const POISON = 0xee;

class Block implements FragmentLease {
  readonly buffer: Buffer;
  readonly #onLetGo: (block: Block) => void;
  holds = 0;
  /** Regions are still being carved from it (the current slab, or a block of its own being handed out). */
  carving = true;
  /** Went to somebody who does not say when they are done: never reused. */
  kept = false;
  /** In the pool, waiting to be carved again. */
  pooled = false;

  constructor(buffer: Buffer, onLetGo: (block: Block) => void) {
    this.buffer = buffer;
    this.#onLetGo = onLetGo;
  }

  hold(): () => void {
    this.holds++;
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      this.holds--;
      this.#onLetGo(this);
    };
  }

  keepForever(): void {
    this.kept = true;
  }
}

/**
 * Native ingest publishes 5 to 25 fragments a second per camera. With fresh memory for each, 50 cameras allocate
 * ~12 MB a second of ArrayBuffers that only the garbage collector frees, in bursts: between two full collections
 * the freed-but-not-yet-collected memory grew the process by ~30 MiB, and the external memory itself started about
 * half of the full collections. Here a camera's fragments come from a few blocks that go round: the GOP cache, the
 * recording queue and the segment writer hold a block while they keep bytes of it, and a block nobody holds any
 * more — and that never went to a live viewer — is carved again.
 *
 * Fragments up to half a slab are carved from the current slab; larger ones (keyframes while somebody watches, a
 * 200 ms batch of a high-rate camera) get a block of their own, reused for a later large fragment that fits it.
 */
export class FragmentMemory {
  readonly slabBytes: number;
  readonly #poolBytes: number;
  readonly #poison: boolean;
  #slab: Block | undefined;
  #used = 0;
  /** Free slabs, and free blocks of their own (any size), ready to be carved again. */
  #freeSlabs: Block[] = [];
  #freeLarge: Block[] = [];
  #pooledBytes = 0;
  /** Blocks allocated so far (slabs and blocks of their own). */
  allocations = 0;
  /** Times a block was carved again instead of allocated. */
  reuses = 0;

  constructor(opts: FragmentMemoryOptions = {}) {
    const slabBytes = opts.slabBytes ?? DEFAULT_SLAB_BYTES;
    if (!Number.isInteger(slabBytes) || slabBytes < 4096) throw new RangeError('FragmentMemory: slabBytes must be an integer >= 4096');
    this.slabBytes = slabBytes;
    this.#poolBytes = opts.poolBytes ?? DEFAULT_POOL_BYTES;
    this.#poison = opts.poison ?? false;
  }

  /** Bytes of free blocks waiting to be carved again. */
  get pooledBytes(): number {
    return this.#pooledBytes;
  }

  /** `bytes` of memory nobody else is handed until every holder of its block has let go. */
  take(bytes: number): TakenMemory {
    if (bytes > this.slabBytes / 2) return this.#takeLarge(bytes);
    let slab = this.#slab;
    if (slab === undefined || this.#used + bytes > this.slabBytes) {
      if (slab !== undefined) this.#retire(slab);
      const pooled = this.#freeSlabs.pop();
      slab = pooled === undefined ? this.#allocate(this.slabBytes) : this.#unpool(pooled);
      this.#slab = slab;
      this.#used = 0;
    }
    const start = this.#used;
    this.#used = start + ((bytes + ALIGN - 1) & ~(ALIGN - 1));
    return { data: slab.buffer.subarray(start, start + bytes), lease: slab };
  }

  #takeLarge(bytes: number): TakenMemory {
    const at = this.#freeLarge.findIndex((block) => block.buffer.length >= bytes);
    if (at < 0) this.#dropLargeBelow(bytes);
    const block = at >= 0 ? this.#unpool(this.#freeLarge.splice(at, 1)[0] as Block) : this.#allocate(Math.ceil(bytes / LARGE_STEP) * LARGE_STEP);
    // Nothing else is carved from it: it is free again as soon as its holders let go.
    block.carving = false;
    return { data: block.buffer.subarray(0, bytes), lease: block };
  }

  /** Pooled blocks too small for what comes now are left to the garbage collector: they would only take the pool's room. */
  #dropLargeBelow(bytes: number): void {
    const kept = this.#freeLarge.filter((block) => block.buffer.length >= bytes);
    for (const block of this.#freeLarge) {
      if (block.buffer.length >= bytes) continue;
      block.pooled = false;
      block.kept = true;
      this.#pooledBytes -= block.buffer.length;
    }
    this.#freeLarge = kept;
  }

  #allocate(bytes: number): Block {
    this.allocations++;
    return new Block(Buffer.allocUnsafeSlow(bytes), this.#reuseIfFree);
  }

  #unpool(block: Block): Block {
    this.reuses++;
    this.#pooledBytes -= block.buffer.length;
    block.pooled = false;
    block.carving = true;
    return block;
  }

  #retire(slab: Block): void {
    slab.carving = false;
    this.#reuseIfFree(slab);
  }

  /** Called when a hold ends: a block that is finished, not held and never kept goes back to the pool (if it fits). */
  readonly #reuseIfFree = (block: Block): void => {
    if (block.carving || block.holds > 0 || block.kept || block.pooled) return;
    // Poisoned even when the pool is full: whoever still reads it without a hold is caught either way.
    if (this.#poison) block.buffer.fill(POISON);
    if (this.#pooledBytes + block.buffer.length > this.#poolBytes) return;
    block.pooled = true;
    (block.buffer.length === this.slabBytes ? this.#freeSlabs : this.#freeLarge).push(block);
    this.#pooledBytes += block.buffer.length;
  };
}
