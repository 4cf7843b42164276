// Remembers each walked segment's media end per day folder (work_dir/archive-ends), so a walk reads a file's media once.
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** What a cached end is valid for: the file as it was when measured. */
export interface CachedEnd {
  size: number;
  /** mtime in whole milliseconds. */
  mtimeMs: number;
  /** End of the media, epoch milliseconds. */
  endMs: number;
}

interface DayFile {
  v: 1;
  /** file name → [size, mtimeMs, endMs] */
  files: Record<string, [number, number, number]>;
}

/**
 * One small JSON file per camera day. An entry counts only while the file has the same size and mtime, so a file
 * replaced, copied over or touched is measured again. Losing the cache costs time, never correctness.
 */
export class SegmentEndCache {
  readonly #dir: string;

  constructor(workDir: string) {
    this.#dir = join(workDir, 'archive-ends');
  }

  #file(cameraId: string, day: string): string {
    return join(this.#dir, cameraId, `${day}.json`);
  }

  async load(cameraId: string, day: string): Promise<Map<string, CachedEnd>> {
    const out = new Map<string, CachedEnd>();
    try {
      const doc = JSON.parse(await readFile(this.#file(cameraId, day), 'utf8')) as DayFile;
      if (doc.v !== 1 || typeof doc.files !== 'object' || doc.files === null) return out;
      for (const [name, entry] of Object.entries(doc.files)) {
        if (Array.isArray(entry) && entry.length === 3 && entry.every((n) => Number.isFinite(n))) out.set(name, { size: entry[0], mtimeMs: entry[1], endMs: entry[2] });
      }
    } catch {
      // no cache yet, or an unreadable one: everything is measured again
    }
    return out;
  }

  /** Replaces the day's entries (written to a temporary name, then renamed; no fsync: it is a cache). */
  async save(cameraId: string, day: string, entries: ReadonlyMap<string, CachedEnd>): Promise<void> {
    const doc: DayFile = { v: 1, files: {} };
    for (const [name, e] of entries) doc.files[name] = [e.size, e.mtimeMs, e.endMs];
    const file = this.#file(cameraId, day);
    await mkdir(join(this.#dir, cameraId), { recursive: true });
    await writeFile(`${file}.tmp`, JSON.stringify(doc));
    await rename(`${file}.tmp`, file);
  }
}
