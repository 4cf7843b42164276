// Runs archive jobs in the background: per-kind limits, submit order, persistence, restart recovery, expiry.
import { randomBytes } from 'node:crypto';
import { stat } from 'node:fs/promises';
import type { Logger } from 'pino';
import { JobFailure, type JobKind, type JobRecord } from './job-record.js';
import type { JobStore } from './job-store.js';
import { systemClock, type Clock, type TimerHandle } from '../util/clock.js';

export interface JobRunContext {
  resultPath: string;
  scratchDir: string;
  signal: AbortSignal;
  progress(fraction: number): void;
}

export type JobRunner = (job: JobRecord, ctx: JobRunContext) => Promise<void>;

export interface JobQueueOptions {
  store: JobStore;
  log: Logger;
  /** How each kind runs; assembly jobs (with `parts`) use `assemble`. */
  runners: { export: JobRunner; timelapse: JobRunner; assemble: JobRunner };
  limits?: Record<JobKind, number>;
  resultTtlMs: number;
  clock?: Clock;
  /** Observes state changes (metrics). */
  onChange?(job: JobRecord, previous: JobRecord['state'] | undefined): void;
}

/** A job started this many times without finishing fails as interrupted rather than looping forever. */
const MAX_ATTEMPTS = 3;
/** An expired job's record is kept this long so its download keeps answering 410, then forgotten. */
const EXPIRED_RECORD_MS = 24 * 3_600_000;

export class JobQueue {
  readonly #opts: JobQueueOptions;
  readonly #limits: Record<JobKind, number>;
  readonly #jobs = new Map<string, JobRecord>();
  /** Results being deleted now, by job id. */
  readonly #expiring = new Map<string, Promise<void>>();
  #pending: string[] = [];
  readonly #running = new Map<string, { controller: AbortController; done: Promise<void> }>();
  #sweepTimer: TimerHandle | undefined;
  #closing = false;

  get #clock(): Clock {
    return this.#opts.clock ?? systemClock;
  }

  constructor(opts: JobQueueOptions) {
    this.#opts = opts;
    this.#limits = opts.limits ?? { export: 4, timelapse: 2 };
  }

  #now(): number {
    return this.#clock.now();
  }

  /** Loads the records: pending and running jobs run again, finished results stay until they expire. */
  async open(): Promise<void> {
    for (const job of await this.#opts.store.open()) {
      this.#jobs.set(job.job_id, job);
      if (job.state === 'pending' || job.state === 'running') {
        if (job.attempts >= MAX_ATTEMPTS) {
          await this.#finish(job, { state: 'failed', reason: 'interrupted', message: `stopped by ${job.attempts} restarts before it finished` });
        } else {
          job.state = 'pending';
          job.progress = 0;
          this.#pending.push(job.job_id);
        }
      }
    }
    if (this.#pending.length > 0) this.#opts.log.info({ jobs: this.#pending.length }, 'resuming archive jobs left unfinished by the previous run');
    await this.sweep();
    this.#sweepTimer = this.#clock.setInterval(() => void this.sweep(), 30_000);
    this.#schedule();
  }

  async submit(spec: Pick<JobRecord, 'camera_id' | 'from' | 'to' | 'kind'> & Partial<Pick<JobRecord, 'speed' | 'parts'>>): Promise<JobRecord> {
    const job: JobRecord = { job_id: randomBytes(8).toString('hex'), ...spec, created_at: Math.floor(this.#now() / 1000), state: 'pending', progress: 0, attempts: 0 };
    this.#jobs.set(job.job_id, job);
    await this.#opts.store.save(job);
    this.#opts.onChange?.(job, undefined);
    this.#pending.push(job.job_id);
    this.#schedule();
    return job;
  }

  get(jobId: string): JobRecord | undefined {
    return this.#jobs.get(jobId);
  }

  list(): JobRecord[] {
    return [...this.#jobs.values()];
  }

  /** True when the finished job's result is past its retention time (deleting it if the sweep has not yet). */
  async isExpired(job: JobRecord): Promise<boolean> {
    if (job.expired === true) {
      await this.#expiring.get(job.job_id); // a sweep may be deleting it right now
      return true;
    }
    if (job.state !== 'done' || job.completed_at === undefined) return false;
    if (job.completed_at * 1000 + this.#opts.resultTtlMs > this.#now()) return false;
    await this.#expire(job);
    return true;
  }

  /** Deletes results past their retention time and forgets long-expired records. */
  async sweep(): Promise<void> {
    for (const job of [...this.#jobs.values()]) {
      if (job.completed_at === undefined) continue;
      const age = this.#now() - job.completed_at * 1000;
      if (job.state === 'done' && job.expired !== true && age >= this.#opts.resultTtlMs) await this.#expire(job);
      if (age >= this.#opts.resultTtlMs + EXPIRED_RECORD_MS) {
        this.#jobs.delete(job.job_id);
        await this.#opts.store.removeResult(job.job_id);
        await this.#opts.store.removeRecord(job.job_id);
      }
    }
  }

  /** Stops running jobs without failing them: they stay `running` on disk and run again at the next start. */
  async close(): Promise<void> {
    this.#closing = true;
    this.#clock.clearInterval(this.#sweepTimer);
    for (const r of this.#running.values()) r.controller.abort();
    await Promise.all([...this.#running.values()].map((r) => r.done));
  }

  /** Marks the job expired at once and deletes its result; callers who see the mark can await the deletion. */
  #expire(job: JobRecord): Promise<void> {
    job.expired = true;
    const deleting = (async () => {
      await this.#opts.store.removeResult(job.job_id);
      await this.#opts.store.save(job);
      this.#opts.log.info({ job: job.job_id }, 'job result expired and deleted');
    })().finally(() => this.#expiring.delete(job.job_id));
    this.#expiring.set(job.job_id, deleting);
    return deleting;
  }

  #runningOf(kind: JobKind): number {
    let n = 0;
    for (const id of this.#running.keys()) if (this.#jobs.get(id)?.kind === kind) n++;
    return n;
  }

  #schedule(): void {
    if (this.#closing) return;
    const still: string[] = [];
    for (const id of this.#pending) {
      const job = this.#jobs.get(id);
      if (job === undefined) continue;
      if (this.#runningOf(job.kind) < this.#limits[job.kind]) this.#start(job);
      else still.push(id);
    }
    this.#pending = still;
  }

  #start(job: JobRecord): void {
    const controller = new AbortController();
    // A record that cannot be written (the disk full, work_dir gone) ends this run, never the process: the job stays
    // as it was last saved and runs again at the next start.
    const done = this.#run(job, controller).catch((err: unknown) => {
      this.#opts.log.error({ job: job.job_id, kind: job.kind, camera: job.camera_id, err: (err as Error).message }, 'archive job record could not be saved; the job runs again at the next start');
    }).finally(() => {
      this.#running.delete(job.job_id);
      this.#schedule();
    });
    this.#running.set(job.job_id, { controller, done });
  }

  async #run(job: JobRecord, controller: AbortController): Promise<void> {
    const { store, log } = this.#opts;
    job.state = 'running';
    job.attempts++;
    job.progress = 0;
    await store.save(job);
    this.#opts.onChange?.(job, 'pending');
    const runner = job.parts !== undefined ? this.#opts.runners.assemble : this.#opts.runners[job.kind];
    const started = this.#now();
    try {
      await runner(job, {
        resultPath: store.resultPath(job.job_id),
        scratchDir: store.scratchDir(job.job_id),
        signal: controller.signal,
        progress: (p) => {
          job.progress = Math.round(p * 1000) / 1000;
        },
      });
      const size = (await stat(store.resultPath(job.job_id))).size;
      await this.#finish(job, { state: 'done', size_bytes: size });
      log.info({ job: job.job_id, kind: job.kind, camera: job.camera_id, size, ms: this.#now() - started }, 'archive job done');
    } catch (err) {
      if (controller.signal.aborted && this.#closing) return; // left as running: the next start runs it again
      const failure = err instanceof JobFailure ? err : new JobFailure('media_tool_failed', (err as Error).message);
      await this.#finish(job, { state: 'failed', reason: failure.reason, message: failure.message });
      log.warn({ job: job.job_id, kind: job.kind, camera: job.camera_id, reason: failure.reason, err: failure.message }, 'archive job failed');
    } finally {
      await store.removeScratch(job.job_id).catch(() => undefined);
    }
  }

  async #finish(job: JobRecord, outcome: Partial<JobRecord>): Promise<void> {
    const previous = job.state;
    Object.assign(job, outcome, { completed_at: Math.floor(this.#now() / 1000), progress: outcome.state === 'done' ? 1 : job.progress });
    await this.#opts.store.save(job);
    this.#opts.onChange?.(job, previous);
  }
}
