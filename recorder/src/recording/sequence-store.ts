// Hands out each camera's segment sequence numbers so they keep rising across restarts.
import { mkdir, readFile, readdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DAY_FOLDER_PATTERN, parseSegmentFileName } from './segment-name.js';

/**
 * The last number is persisted under work_dir/sequences and, in case that file is lost or
 * stale, also recovered from the newest date folders of the camera's recordings.
 */
export class SequenceStore {
  readonly #dir: string;
  readonly #recordPath: string;
  readonly #last = new Map<string, number>();
  readonly #loading = new Map<string, Promise<number>>();
  #persisting: Promise<void> = Promise.resolve();

  constructor(workDir: string, recordPath: string) {
    this.#dir = join(workDir, 'sequences');
    this.#recordPath = recordPath;
  }

  async next(cameraId: string): Promise<number> {
    let last = this.#last.get(cameraId);
    if (last === undefined) {
      let loading = this.#loading.get(cameraId);
      if (loading === undefined) {
        loading = this.#load(cameraId);
        this.#loading.set(cameraId, loading);
      }
      last = Math.max(await loading, this.#last.get(cameraId) ?? 0);
    }
    const next = last + 1;
    this.#last.set(cameraId, next);
    this.#persist(cameraId, next);
    return next;
  }

  /** Waits for pending writes (shutdown). */
  flush(): Promise<void> {
    return this.#persisting;
  }

  async #load(cameraId: string): Promise<number> {
    const stored = await readFile(join(this.#dir, cameraId), 'utf8').then(
      (t) => Number.parseInt(t, 10) || 0,
      () => 0,
    );
    return Math.max(stored, await this.#newestOnDisk(cameraId));
  }

  async #newestOnDisk(cameraId: string): Promise<number> {
    const cameraDir = join(this.#recordPath, cameraId);
    const days = await readdir(cameraDir).catch(() => [] as string[]);
    const newest = days.filter((d) => DAY_FOLDER_PATTERN.test(d)).sort().slice(-2);
    let max = 0;
    for (const day of newest) {
      for (const name of await readdir(join(cameraDir, day)).catch(() => [] as string[])) {
        const parsed = parseSegmentFileName(name.replace(/\.part$/, ''));
        if (parsed !== undefined && parsed.cameraId === cameraId) max = Math.max(max, parsed.sequence);
      }
    }
    return max;
  }

  #persist(cameraId: string, value: number): void {
    const file = join(this.#dir, cameraId);
    this.#persisting = this.#persisting.then(async () => {
      try {
        await mkdir(this.#dir, { recursive: true });
        await writeFile(`${file}.tmp`, String(value));
        await rename(`${file}.tmp`, file);
      } catch {
        // The newest file on disk still carries the number; losing this write loses nothing.
      }
    });
  }
}
