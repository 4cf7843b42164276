// Job records and results on disk: work_dir/jobs/<id>.json and <id>.mp4, written atomically.
import { mkdir, readFile, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { JobRecord } from './job-record.js';

export const JOB_ID_PATTERN = /^[a-z0-9]{8,40}$/;

export class JobStore {
  readonly dir: string;
  /**
   * The last write of each job's record still under way: writes of one record happen one after the other (two at once
   * would share the temporary file, and the second rename would find it gone), and a removal waits for them.
   */
  readonly #writes = new Map<string, Promise<void>>();

  constructor(workDir: string) {
    this.dir = join(workDir, 'jobs');
  }

  async open(): Promise<JobRecord[]> {
    await mkdir(this.dir, { recursive: true });
    const out: JobRecord[] = [];
    for (const name of await readdir(this.dir)) {
      if (!name.endsWith('.json')) continue;
      try {
        out.push(JSON.parse(await readFile(join(this.dir, name), 'utf8')) as JobRecord);
      } catch {
        // a torn write cannot happen (rename), but a hand-edited file can: skip it
      }
    }
    return out.sort((a, b) => a.created_at - b.created_at || a.job_id.localeCompare(b.job_id));
  }

  /** Writes the record as it is now (atomically: a temporary file renamed), after any earlier write of it. */
  save(job: JobRecord): Promise<void> {
    const file = join(this.dir, `${job.job_id}.json`);
    const body = JSON.stringify(job);
    return this.#inTurn(job.job_id, async () => {
      await writeFile(`${file}.tmp`, body);
      await rename(`${file}.tmp`, file);
    });
  }

  #inTurn(jobId: string, write: () => Promise<void>): Promise<void> {
    const next = (this.#writes.get(jobId) ?? Promise.resolve()).catch(() => undefined).then(write);
    this.#writes.set(jobId, next);
    const forget = () => {
      if (this.#writes.get(jobId) === next) this.#writes.delete(jobId);
    };
    next.then(forget, forget);
    return next;
  }

  resultPath(jobId: string): string {
    return join(this.dir, `${jobId}.mp4`);
  }

  /** A scratch folder for one run of the job (concat lists, downloaded parts), removed afterwards. */
  scratchDir(jobId: string): string {
    return join(this.dir, `${jobId}.work`);
  }

  async removeResult(jobId: string): Promise<void> {
    await rm(this.resultPath(jobId), { force: true });
  }

  async removeScratch(jobId: string): Promise<void> {
    await rm(this.scratchDir(jobId), { recursive: true, force: true });
  }

  async removeRecord(jobId: string): Promise<void> {
    await this.#inTurn(jobId, () => rm(join(this.dir, `${jobId}.json`), { force: true }));
    await this.removeScratch(jobId);
  }
}
