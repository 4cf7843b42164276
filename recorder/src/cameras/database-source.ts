// The cameras table as a camera source: rows of this node, polled, validated, cached for restarts without the database.
import { readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { cameraSchema, type VigilConfig } from '../config/schema.js';
import { cameraFromConfig, type Camera } from './camera.js';
import type { CameraRegistry, CameraSourceName } from './registry.js';

export const DATABASE_SOURCE = 'database' satisfies CameraSourceName;

/** A row of the cameras table, as the database layer reads it. */
export interface CameraRow {
  id: string;
  source: string;
  ptz: boolean;
  snapuri: string | null;
  record_format: string | null;
  segment_seconds: number | null;
  max_age_days: number | null;
}

export interface DatabaseCameraSourceOptions {
  registry: CameraRegistry;
  config: VigilConfig;
  nodeName: string;
  workDir: string;
  log: Logger;
  readRows(): Promise<CameraRow[]>;
  pollMs: number;
}

export class DatabaseCameraSource {
  readonly #opts: DatabaseCameraSourceOptions;
  readonly #cacheFile: string;
  #timer: NodeJS.Timeout | undefined;
  #lastJson = '';
  #warnedEmpty = false;
  #warnedUnreachable = false;
  readonly #rejected = new Set<string>();

  constructor(opts: DatabaseCameraSourceOptions) {
    this.#opts = opts;
    this.#cacheFile = join(opts.workDir, 'database-cameras.json');
  }

  /** Publishes the cached list (if any) at once, then polls the table. */
  async start(): Promise<void> {
    try {
      const cached = JSON.parse(await readFile(this.#cacheFile, 'utf8')) as { nodeName: string; cameras: Camera[] };
      if (cached.nodeName === this.#opts.nodeName) this.#opts.registry.publish(DATABASE_SOURCE, cached.cameras);
    } catch {
      // no cache yet
    }
    await this.poll();
    this.#timer = setInterval(() => void this.poll(), this.#opts.pollMs);
  }

  stop(): void {
    clearInterval(this.#timer);
  }

  async poll(): Promise<void> {
    let rows: CameraRow[];
    try {
      rows = await this.#opts.readRows();
    } catch (err) {
      if (!this.#warnedUnreachable) this.#opts.log.warn({ err: (err as Error).message }, 'cannot read the cameras table; keeping the last known database cameras');
      this.#warnedUnreachable = true;
      return;
    }
    this.#warnedUnreachable = false;
    const cameras = rows.flatMap((row) => this.#toCamera(row));
    if (rows.length === 0 && !this.#warnedEmpty) {
      this.#opts.log.warn({ node: this.#opts.nodeName }, `no row of the cameras table has node_name = "${this.#opts.nodeName}"; this node records only the cameras of its configuration file`);
    }
    this.#warnedEmpty = rows.length === 0;
    const json = JSON.stringify(cameras);
    if (json === this.#lastJson) return;
    this.#lastJson = json;
    const changes = this.#opts.registry.publish(DATABASE_SOURCE, cameras);
    if (changes.added.length + changes.updated.length + changes.removed.length > 0) this.#opts.log.info(changes, 'database cameras changed');
    const tmp = `${this.#cacheFile}.tmp`;
    await writeFile(tmp, JSON.stringify({ nodeName: this.#opts.nodeName, cameras }))
      .then(() => rename(tmp, this.#cacheFile))
      .catch((err: unknown) => this.#opts.log.warn({ err: String(err) }, 'cannot cache the database cameras'));
  }

  #toCamera(row: CameraRow): Camera[] {
    const parsed = cameraSchema.safeParse({
      id: row.id,
      source: row.source,
      ptz: row.ptz,
      ...(row.snapuri === null ? {} : { snapuri: row.snapuri }),
      ...(row.record_format === null && row.segment_seconds === null && row.max_age_days === null
        ? {}
        : {
            record: {
              ...(row.record_format === null ? {} : { format: row.record_format }),
              ...(row.segment_seconds === null ? {} : { segment_seconds: row.segment_seconds }),
              ...(row.max_age_days === null ? {} : { retention: { max_age_days: row.max_age_days } }),
            },
          }),
    });
    if (!parsed.success) {
      if (!this.#rejected.has(row.id)) {
        this.#rejected.add(row.id);
        this.#opts.log.warn({ camera: row.id, problem: parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ') }, 'a cameras row is not valid and is ignored');
      }
      return [];
    }
    this.#rejected.delete(row.id);
    return [cameraFromConfig(parsed.data, this.#opts.config, DATABASE_SOURCE)];
  }
}
