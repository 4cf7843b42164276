// The on-disk archive as an index: the start-up walk (camera by camera, on demand first), rescans, errors.
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { CAMERA_ID_PATTERN } from '../config/schema.js';
import type { ClosedSegment } from '../recording/closed-segment.js';
import { isRecordPathMissing } from '../recording/record-path-folders.js';
import { DAY_FOLDER_PATTERN, parseSegmentFileName } from '../recording/segment-name.js';
import { ArchiveDiskError } from './archive-errors.js';
import type { SegmentEndCache } from './segment-end-cache.js';
import { SegmentEnds, type WalkedFile } from './segment-ends.js';
import type { SegmentIndex } from './segment-index.js';

/** The segments among `gone` whose files are not there now (a stat each; only files a walk did not see). */
async function stillMissing(recordPath: string, gone: readonly ClosedSegment[]): Promise<ClosedSegment[]> {
  const present = await Promise.all(gone.map((seg) => stat(join(recordPath, seg.filename)).then(() => true, () => false)));
  return gone.filter((_, i) => !present[i]);
}

const STAT_CONCURRENCY = 64;

export interface ArchiveCatalogOptions {
  recordPath: string;
  index: SegmentIndex;
  log: Logger;
  /** Files being written right now are not closed segments. */
  isOpen(filename: string): boolean;
  /** Media ends measured by earlier walks (work_dir/archive-ends); without it every start measures every file. */
  endCache?: SegmentEndCache;
  /** Files found by a rescan that the index did not have, and indexed files that are gone. */
  onReconciled?(added: ClosedSegment[], removed: ClosedSegment[]): void;
}

export interface RescanResult {
  added: number;
  removed: number;
}

export class ArchiveCatalog {
  readonly #opts: ArchiveCatalogOptions;
  readonly #ends: SegmentEnds;
  readonly #walks = new Map<string, Promise<void>>();
  readonly #errors = new Map<string, string>();
  #cameraList: Promise<string[]> | undefined;
  #rootError: string | undefined;
  #initial: Promise<void> | undefined;

  constructor(opts: ArchiveCatalogOptions) {
    this.#opts = opts;
    this.#ends = new SegmentEnds({
      recordPath: opts.recordPath,
      ...(opts.endCache === undefined ? {} : { cache: opts.endCache }),
      known: (cameraId, sequence) => opts.index.sizeAndEnd(cameraId, sequence),
    });
  }

  /** Starts the start-up walk in the background; resolves when every camera is indexed. */
  startInitialWalk(): Promise<void> {
    this.#initial ??= (async () => {
      const started = Date.now();
      const cameras = await this.#cameras();
      for (const id of cameras) await this.ensureCamera(id).catch(() => undefined);
      let segments = 0;
      for (const id of cameras) segments += this.#opts.index.count(id);
      this.#opts.log.info({ cameras: cameras.length, segments, ms: Date.now() - started }, 'archive walk finished');
    })();
    return this.#initial;
  }

  /** Resolves once the camera's folder is indexed (walking it now if the start-up walk has not got there). */
  async ensureCamera(cameraId: string): Promise<void> {
    await this.#cameras();
    if (this.#rootError !== undefined) throw new ArchiveDiskError(`the recordings directory cannot be read: ${this.#rootError}`);
    let walk = this.#walks.get(cameraId);
    if (walk === undefined) {
      walk = this.#walkCamera(cameraId, (seg) => this.#opts.index.add(seg)).then(() => undefined);
      this.#walks.set(cameraId, walk);
    }
    await walk;
    const error = this.#errors.get(cameraId);
    if (error !== undefined) throw new ArchiveDiskError(`the archive of camera ${cameraId} cannot be read: ${error}`);
  }

  /**
   * Walks everything again; indexes files added by hand and forgets files removed by hand. While record_path is
   * missing (an unmounted disk) nothing is forgotten: its files are not deleted, only out of reach.
   */
  async rescan(): Promise<RescanResult> {
    await this.startInitialWalk();
    const { recordPath, log } = this.#opts;
    if (await isRecordPathMissing(recordPath)) {
      log.warn({ record_path: recordPath }, 'archive rescan skipped: record_path is missing; the index keeps every segment it had');
      return { added: 0, removed: 0 };
    }
    const walkStarted = Date.now();
    this.#cameraList = undefined;
    const { index } = this.#opts;
    const cameras = new Set([...(await this.#cameras()), ...index.cameras()]);
    const added: ClosedSegment[] = [];
    const gone: ClosedSegment[] = [];
    for (const cameraId of cameras) {
      const seen = new Map<number, ClosedSegment>();
      const ok = await this.#walkCamera(cameraId, (seg) => seen.set(seg.sequence, seg));
      if (!ok) continue;
      const known = new Map(index.segments(cameraId).map((s) => [s.sequence, s]));
      for (const [seq, seg] of seen) {
        const had = known.get(seq);
        if (had === undefined || had.size !== seg.size) {
          index.add(seg);
          if (had === undefined) added.push(seg);
        }
      }
      for (const [seq, seg] of known) {
        // A segment closed while this walk ran may be missing from it: keep those.
        if (!seen.has(seq) && seg.end.getTime() < walkStarted) gone.push(seg);
      }
    }
    // record_path may have vanished during the walk: then its files only look deleted. And a file the walk missed
    // (renamed into place while its folder was read) is only gone when it is still not there now.
    const removed = gone.length > 0 && (await isRecordPathMissing(recordPath)) ? [] : await stillMissing(recordPath, gone);
    for (const seg of removed) index.remove(seg.cameraId, seg.filename);
    if (added.length + removed.length > 0) {
      log.info({ added: added.length, removed: removed.length }, 'archive rescan found files changed outside the recorder');
      this.#opts.onReconciled?.(added, removed);
    }
    return { added: added.length, removed: removed.length };
  }

  #cameras(): Promise<string[]> {
    this.#cameraList ??= readdir(this.#opts.recordPath).then(
      (names) => {
        this.#rootError = undefined;
        return names.filter((n) => CAMERA_ID_PATTERN.test(n)).sort();
      },
      (err: NodeJS.ErrnoException) => {
        if (err.code === 'ENOENT') return [];
        this.#rootError = err.code ?? String(err);
        this.#opts.log.error({ err: this.#rootError, path: this.#opts.recordPath }, 'the recordings directory cannot be read');
        this.#cameraList = undefined;
        return [];
      },
    );
    return this.#cameraList;
  }

  /** Reports every segment file of the camera; false (and an error noted) when a folder cannot be read. */
  async #walkCamera(cameraId: string, onSegment: (seg: ClosedSegment) => void): Promise<boolean> {
    const cameraDir = join(this.#opts.recordPath, cameraId);
    try {
      const days = (await readdir(cameraDir).catch((err: NodeJS.ErrnoException) => (err.code === 'ENOENT' ? [] : Promise.reject(err)))).filter((d) => DAY_FOLDER_PATTERN.test(d)).sort();
      for (const day of days) {
        const names = await readdir(join(cameraDir, day));
        const candidates: Array<{ name: string; parsed: NonNullable<ReturnType<typeof parseSegmentFileName>> }> = [];
        for (const name of names) {
          const parsed = parseSegmentFileName(name);
          if (parsed !== undefined && parsed.cameraId === cameraId && !this.#opts.isOpen(`${cameraId}/${day}/${name}`)) candidates.push({ name, parsed });
        }
        const files: WalkedFile[] = [];
        for (let i = 0; i < candidates.length; i += STAT_CONCURRENCY) {
          const batch = candidates.slice(i, i + STAT_CONCURRENCY);
          const stats = await Promise.all(batch.map((c) => stat(join(cameraDir, day, c.name)).catch(() => undefined)));
          batch.forEach((c, k) => {
            const st = stats[k];
            if (st === undefined || !st.isFile()) return;
            files.push({ name: c.name, sequence: c.parsed.sequence, startMs: c.parsed.start.getTime(), size: st.size, mtimeMs: st.mtimeMs });
          });
        }
        const ends = await this.#ends.endsOf(cameraId, day, files);
        files.forEach((f, k) => {
          const start = new Date(f.startMs);
          const end = new Date(ends[k] as number);
          // mtime is the segment's end, as the writer and the repair set it, even for a file copied without its mtime.
          onSegment({ cameraId, filename: `${cameraId}/${day}/${f.name}`, start, end, sequence: f.sequence, size: f.size, mtime: Math.floor(end.getTime() / 1000) });
        });
      }
      this.#errors.delete(cameraId);
      return true;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? String(err);
      this.#errors.set(cameraId, code);
      this.#opts.log.error({ camera: cameraId, err: code }, 'a camera folder of the archive cannot be read');
      return false;
    }
  }
}
