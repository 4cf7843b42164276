// Prometheus series of archive jobs (export, timelapse, assemble): how many are in each state, and how long they took.
import { Gauge, Histogram, type Registry } from 'prom-client';

export const JOB_KINDS = ['export', 'timelapse', 'assemble'] as const;
export const JOB_STATES = ['pending', 'running', 'done', 'failed'] as const;
export type JobKind = (typeof JOB_KINDS)[number];
export type JobState = (typeof JOB_STATES)[number];

/** What the jobs module calls; every series starts at zero so dashboards see them before the first job. */
export interface JobMetrics {
  /** The number of jobs of a kind now in a state (the jobs module sets it whenever a job moves). */
  setCount(kind: JobKind, state: JobState, count: number): void;
  /** A job ended (done or failed) after this many seconds from submit. */
  observeDuration(kind: JobKind, outcome: 'done' | 'failed', seconds: number): void;
}

export function registerJobMetrics(registry: Registry): JobMetrics {
  const jobs = new Gauge({ name: 'vigil_jobs', help: 'Archive jobs by kind and state', labelNames: ['kind', 'state'], registers: [registry] });
  const duration = new Histogram({
    name: 'vigil_job_duration_seconds',
    help: 'Archive job duration from submit to done or failed',
    labelNames: ['kind', 'outcome'],
    buckets: [1, 5, 15, 60, 300, 900, 3600],
    registers: [registry],
  });
  for (const kind of JOB_KINDS) {
    for (const state of JOB_STATES) jobs.set({ kind, state }, 0);
    duration.zero({ kind, outcome: 'done' });
    duration.zero({ kind, outcome: 'failed' });
  }
  return {
    setCount: (kind, state, count) => jobs.set({ kind, state }, count),
    observeDuration: (kind, outcome, seconds) => duration.observe({ kind, outcome }, seconds),
  };
}
