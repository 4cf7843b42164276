// Notes which segment files are being written, so a start after a crash knows exactly what to repair.
import { mkdir, readFile, readdir, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { RecordFormat } from '../cameras/camera.js';

export interface OpenSegmentEntry {
  cameraId: string;
  /** Final file name relative to record_path (ends .mp4; an mp4-format file is written as `<name>.part`). */
  filename: string;
  format: RecordFormat;
  start: string;
  sequence: number;
}

export class OpenSegmentJournal {
  readonly #dir: string;

  constructor(workDir: string) {
    this.#dir = join(workDir, 'open-segments');
  }

  #file(entry: Pick<OpenSegmentEntry, 'cameraId' | 'sequence'>): string {
    return join(this.#dir, `${entry.cameraId}__${entry.sequence}.json`);
  }

  async add(entry: OpenSegmentEntry): Promise<void> {
    await mkdir(this.#dir, { recursive: true });
    await writeFile(this.#file(entry), JSON.stringify(entry));
  }

  async remove(entry: Pick<OpenSegmentEntry, 'cameraId' | 'sequence'>): Promise<void> {
    await unlink(this.#file(entry)).catch(() => undefined);
  }

  async list(): Promise<OpenSegmentEntry[]> {
    const names = await readdir(this.#dir).catch(() => [] as string[]);
    const out: OpenSegmentEntry[] = [];
    for (const name of names.filter((n) => n.endsWith('.json'))) {
      try {
        out.push(JSON.parse(await readFile(join(this.#dir, name), 'utf8')) as OpenSegmentEntry);
      } catch {
        await unlink(join(this.#dir, name)).catch(() => undefined);
      }
    }
    return out;
  }
}
