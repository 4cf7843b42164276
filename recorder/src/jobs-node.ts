// Wires archive jobs into a recorder: the queue, its runners over local recordings, the cluster token, peers.
import { readFileSync } from 'node:fs';
import type { Logger } from 'pino';
import type { ArchiveCatalog } from './archive/archive-catalog.js';
import type { SegmentIndex } from './archive/segment-index.js';
import type { VigilConfig } from './config/schema.js';
import type { CameraFleet } from './fleet/camera-fleet.js';
import type { JobsService } from './http/routes/archive-jobs.js';
import { exportRunner, timelapseRunner } from './jobs/archive-job-runners.js';
import { assembleRunner } from './jobs/assemble-runner.js';
import type { LocalArchive } from './jobs/export-plan.js';
import { JobQueue } from './jobs/job-queue.js';
import type { JobRecord } from './jobs/job-record.js';
import { JobStore } from './jobs/job-store.js';
import { findExecutable } from './jobs/media-tool.js';
import { JOB_KINDS, JOB_STATES, type JobKind as JobMetricKind, type JobMetrics } from './metrics/job-metrics.js';

export interface JobsNode {
  service: JobsService;
  queue: JobQueue;
  close(): Promise<void>;
}

export interface JobsNodeOptions {
  config: VigilConfig;
  log: Logger;
  index: SegmentIndex;
  catalog: ArchiveCatalog;
  fleet: CameraFleet;
  metrics?: JobMetrics;
}

function metricKind(job: JobRecord): JobMetricKind {
  return job.parts !== undefined ? 'assemble' : job.kind;
}

/** The cluster token shared by the nodes, read once; its absence just means none is sent or accepted. */
export function readClusterToken(config: VigilConfig, log: Logger): string | undefined {
  const file = config.auth.cluster_token_file;
  if (file === undefined) return undefined;
  try {
    return readFileSync(file, 'utf8').trim() || undefined;
  } catch (err) {
    log.error({ file, err: (err as NodeJS.ErrnoException).code ?? String(err) }, 'auth.cluster_token_file cannot be read; node-to-node requests will be refused');
    return undefined;
  }
}

export async function startJobsNode(opts: JobsNodeOptions, clusterToken: string | undefined): Promise<JobsNode> {
  const { config, log, index, catalog, fleet } = opts;
  const jobsLog = log.child({ component: 'jobs' });
  const store = new JobStore(config.work_dir);
  const archive: LocalArchive = {
    recordPath: config.record_path,
    closedSegments: async (cameraId, fromMs, toMs) => {
      await catalog.ensureCamera(cameraId);
      return index.overlapping(cameraId, fromMs, toMs);
    },
    unindexedSegments: (cameraId) => (fleet.runtime(cameraId)?.unindexedSegments() ?? []).map((s) => ({ path: s.writtenPath, startMs: s.start.getTime() })),
  };
  const deps = { archive, mediaTool: config.media_tool, workDir: config.work_dir, minFreeBytes: config.jobs.min_free_bytes };
  const queue = new JobQueue({
    store,
    log: jobsLog,
    runners: {
      export: exportRunner(deps),
      timelapse: timelapseRunner(deps),
      assemble: assembleRunner({ ...deps, clusterToken: () => clusterToken }),
    },
    resultTtlMs: config.jobs.result_ttl_seconds * 1000,
    onChange: (job) => {
      const metrics = opts.metrics;
      if (metrics === undefined) return;
      const counts = new Map<string, number>();
      for (const j of queue.list()) counts.set(`${metricKind(j)}/${j.state}`, (counts.get(`${metricKind(j)}/${j.state}`) ?? 0) + 1);
      for (const kind of JOB_KINDS) for (const state of JOB_STATES) metrics.setCount(kind, state, counts.get(`${kind}/${state}`) ?? 0);
      if ((job.state === 'done' || job.state === 'failed') && job.completed_at !== undefined) metrics.observeDuration(metricKind(job), job.state, job.completed_at - job.created_at);
    },
  });
  await queue.open();
  const peers = new Set(config.cluster.peers);
  const service: JobsService = {
    mediaToolAvailable: async () => (await findExecutable(config.media_tool)) !== undefined,
    submit: (spec) => queue.submit(spec),
    get: (id) => queue.get(id),
    isExpired: (job) => queue.isExpired(job),
    resultPath: (id) => store.resultPath(id),
    isKnownPeer: (addr) => peers.has(addr),
  };
  return { service, queue, close: () => queue.close() };
}
