// Deletes the oldest closed segments past their age limit, and when the disk runs short of free space.
import { readdir, rmdir, unlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Logger } from 'pino';
import type { ClosedSegment } from '../recording/closed-segment.js';
import { systemClock, type Clock } from '../util/clock.js';
import { isRecordPathMissing } from '../recording/record-path-folders.js';
import type { DiskSpaceReader } from './disk-space.js';
import type { SegmentIndex } from './segment-index.js';

export interface RetentionOptions {
  recordPath: string;
  index: SegmentIndex;
  log: Logger;
  diskSpace: DiskSpaceReader;
  minFreePercent: number;
  /** Age limit per camera in days (undefined = keep forever); cameras no longer configured use the global one. */
  maxAgeDays(cameraId: string): number | undefined;
  onDeleted?(segment: ClosedSegment, reason: 'max_age' | 'min_free'): void;
  clock?: Clock;
}

export interface RetentionPass {
  deletedForAge: number;
  deletedForSpace: number;
  freedBytes: number;
}

export class RetentionCleaner {
  readonly #opts: RetentionOptions;
  #running: Promise<RetentionPass> | undefined;
  /** Deletions since start, by reason (exported as metrics). */
  readonly deletions = { max_age: 0, min_free: 0 };

  constructor(opts: RetentionOptions) {
    this.#opts = opts;
  }

  /** One pass; concurrent callers share the pass in progress. */
  run(): Promise<RetentionPass> {
    this.#running ??= this.#pass().finally(() => {
      this.#running = undefined;
    });
    return this.#running;
  }

  async #pass(): Promise<RetentionPass> {
    const result: RetentionPass = { deletedForAge: 0, deletedForSpace: 0, freedBytes: 0 };
    // An unmounted disk: its segments are out of reach, not deleted, and there is no free space to measure.
    if (await isRecordPathMissing(this.#opts.recordPath)) return result;
    const now = (this.#opts.clock ?? systemClock).now();
    const { index } = this.#opts;
    for (const cameraId of index.cameras()) {
      const days = this.#opts.maxAgeDays(cameraId);
      if (days === undefined) continue;
      const cutoff = now - days * 86_400_000;
      let oldest: ClosedSegment | undefined;
      while ((oldest = index.oldest(cameraId)) !== undefined && oldest.end.getTime() < cutoff) {
        if (!(await this.#delete(oldest, 'max_age', result))) break;
        result.deletedForAge++;
      }
    }
    const space = await this.#opts.diskSpace(this.#opts.recordPath);
    let needBytes = Math.ceil((this.#opts.minFreePercent * space.totalBytes) / 100) - space.freeBytes;
    while (needBytes > 0) {
      // Fair across cameras: always the oldest segment of all, so every camera keeps the same depth of time.
      let victim: ClosedSegment | undefined;
      for (const cameraId of index.cameras()) {
        const o = index.oldest(cameraId);
        if (o !== undefined && (victim === undefined || o.start < victim.start)) victim = o;
      }
      if (victim === undefined) {
        this.#opts.log.warn({ free_bytes: space.freeBytes, total_bytes: space.totalBytes }, 'free space under min_free_percent and no closed segment left to delete');
        break;
      }
      if (!(await this.#delete(victim, 'min_free', result))) break;
      result.deletedForSpace++;
      needBytes -= victim.size;
    }
    return result;
  }

  async #delete(segment: ClosedSegment, reason: 'max_age' | 'min_free', result: RetentionPass): Promise<boolean> {
    const path = join(this.#opts.recordPath, segment.filename);
    try {
      await unlink(path);
    } catch (err) {
      // A file already gone counts as deleted, unless the whole record_path went with it (the disk was unmounted).
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT' || (await isRecordPathMissing(this.#opts.recordPath))) {
        this.#opts.log.error({ camera: segment.cameraId, filename: segment.filename, err: String(err) }, 'retention could not delete a segment');
        return false;
      }
    }
    this.#opts.index.remove(segment.cameraId, segment.filename);
    result.freedBytes += segment.size;
    this.deletions[reason]++;
    this.#opts.log.info({ camera: segment.cameraId, filename: segment.filename, reason, size: segment.size }, 'segment deleted by retention');
    this.#opts.onDeleted?.(segment, reason);
    await this.#removeEmptyDayFolder(dirname(path));
    return true;
  }

  async #removeEmptyDayFolder(dir: string): Promise<void> {
    const left = await readdir(dir).catch(() => ['?']);
    if (left.length === 0) await rmdir(dir).catch(() => undefined);
  }
}
