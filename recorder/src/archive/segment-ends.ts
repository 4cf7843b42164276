// The end of each walked segment: from the index when it knows the file, else the day's end cache, else the media itself.
import { join } from 'node:path';
import { readMediaSeconds } from '../media/media-span.js';
import type { CachedEnd, SegmentEndCache } from './segment-end-cache.js';

/** Smaller files cannot hold an init segment and a fragment: their end is their mtime (an empty file, a stub). */
const MIN_MEDIA_BYTES = 512;
/** Files measured at once (each is two or three small reads). */
const MEASURE_CONCURRENCY = 16;

/** A segment file of one day folder as the walk found it. */
export interface WalkedFile {
  name: string;
  sequence: number;
  /** From the name, epoch ms. */
  startMs: number;
  size: number;
  mtimeMs: number;
}

export interface SegmentEndsOptions {
  recordPath: string;
  cache?: SegmentEndCache;
  /** What the index already holds for the camera's sequence (a segment the writer closed, or walked before). */
  known(cameraId: string, sequence: number): { size: number; endMs: number } | undefined;
}

/**
 * The end of a segment is its start (from the name) plus the seconds of media it holds, so an archive copied or
 * restored without its mtimes keeps its days and windows. The file's mtime is the fallback for files that do not
 * say. The writer and the repair set mtime to the same end, so mtime means one thing everywhere.
 */
export class SegmentEnds {
  readonly #opts: SegmentEndsOptions;
  /** Entries in each day's cache file, as last loaded or saved: an unchanged day is neither read nor written again. */
  readonly #cachedCount = new Map<string, number>();

  constructor(opts: SegmentEndsOptions) {
    this.#opts = opts;
  }

  /** Ends (epoch ms) of the day folder's files, in the order given. */
  async endsOf(cameraId: string, day: string, files: readonly WalkedFile[]): Promise<number[]> {
    const { cache, known } = this.#opts;
    const ends = files.map((f) => {
      const k = known(cameraId, f.sequence);
      return k !== undefined && k.size === f.size ? k.endMs : NaN;
    });
    const key = `${cameraId}/${day}`;
    const todo = files.map((_, i) => i).filter((i) => Number.isNaN(ends[i]));
    let measured = 0;
    if (todo.length > 0) {
      const cached = cache === undefined ? new Map<string, CachedEnd>() : await cache.load(cameraId, day);
      if (cache !== undefined && !this.#cachedCount.has(key)) this.#cachedCount.set(key, cached.size);
      const measure: number[] = [];
      for (const i of todo) {
        const f = files[i] as WalkedFile;
        const c = cached.get(f.name);
        if (c !== undefined && c.size === f.size && c.mtimeMs === Math.round(f.mtimeMs)) ends[i] = c.endMs;
        else if (f.size < MIN_MEDIA_BYTES) ends[i] = Math.max(f.startMs, f.mtimeMs);
        else measure.push(i);
      }
      for (let k = 0; k < measure.length; k += MEASURE_CONCURRENCY) {
        await Promise.all(
          measure.slice(k, k + MEASURE_CONCURRENCY).map(async (i) => {
            const f = files[i] as WalkedFile;
            const seconds = await readMediaSeconds(join(this.#opts.recordPath, cameraId, day, f.name), f.size);
            ends[i] = seconds === undefined ? Math.max(f.startMs, f.mtimeMs) : f.startMs + Math.round(seconds * 1000);
          }),
        );
      }
      measured = measure.length;
    }
    if (cache !== undefined) {
      const entries = new Map<string, CachedEnd>();
      files.forEach((f, i) => {
        if (f.size >= MIN_MEDIA_BYTES) entries.set(f.name, { size: f.size, mtimeMs: Math.round(f.mtimeMs), endMs: ends[i] as number });
      });
      if (measured > 0 || entries.size !== (this.#cachedCount.get(key) ?? 0)) {
        // A cache that cannot be written only costs the next walk time.
        await cache.save(cameraId, day, entries).then(
          () => this.#cachedCount.set(key, entries.size),
          () => undefined,
        );
      }
    }
    return ends as number[];
  }
}
