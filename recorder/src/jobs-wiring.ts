// Wires archive jobs into a recorder: the queue, its runners over local recordings, the cluster token, peers.
import type { Logger } from 'pino';
import type { CameraFiles } from './archive/camera-files.js';
import type { VigilConfig } from './config/schema.js';
import type { JobsService } from './http/routes/archive-jobs.js';
import { exportRunner, timelapseRunner } from './jobs/archive-job-runners.js';
import { assembleRunner } from './jobs/assemble-runner.js';
import type { LocalArchive } from './jobs/export-plan.js';
import { JobQueue } from './jobs/job-queue.js';
import type { JobRecord } from './jobs/job-record.js';
import { JobStore } from './jobs/job-store.js';
import { findExecutable } from './jobs/media-tool.js';
import { JOB_KINDS, JOB_STATES, type JobKind as JobMetricKind, type JobMetrics } from './metrics/job-metrics.js';
import type { ClusterToken } from './peers/cluster-token.js';
import type { PeerClient } from './peers/peer-client.js';
import type { PeerDirectory } from './peers/peer-directory.js';
import type { Clock } from './util/clock.js';

export interface Jobs {
  service: JobsService;
  queue: JobQueue;
  close(): Promise<void>;
}

export interface JobsOptions {
  config: VigilConfig;
  log: Logger;
  /** A camera's files now: the index's and the writer's. */
  files: CameraFiles;
  peers: PeerDirectory;
  clusterToken: ClusterToken;
  /** How this node calls its peers (TLS 1.2+, their certificates checked against cluster.tls.ca_file). */
  peerClient: PeerClient;
  clock: Clock;
  metrics?: JobMetrics;
}

function metricKind(job: JobRecord): JobMetricKind {
  return job.parts !== undefined ? 'assemble' : job.kind;
}

export async function startJobs(opts: JobsOptions): Promise<Jobs> {
  const { config, log, files, peers, clusterToken, peerClient } = opts;
  const jobsLog = log.child({ component: 'jobs' });
  const store = new JobStore(config.work_dir);
  const archive: LocalArchive = {
    recordPath: config.record_path,
    closedSegments: (cameraId, fromMs, toMs) => files.closed(cameraId, fromMs, toMs),
    unindexedSegments: (cameraId) => files.unindexed(cameraId).map((s) => ({ path: s.writtenPath, startMs: s.start.getTime() })),
  };
  const deps = { archive, mediaTool: config.media_tool, workDir: config.work_dir, minFreeBytes: config.jobs.min_free_bytes };
  const queue = new JobQueue({
    store,
    log: jobsLog,
    runners: {
      export: exportRunner(deps),
      timelapse: timelapseRunner(deps),
      assemble: assembleRunner({
        ...deps,
        clusterToken: () => clusterToken.current(),
        peerUrl: (addr) => peers.urlOf(addr),
        peerDispatcher: (addr) => peerClient.dispatcher(peers.tlsNameOf?.(addr)),
      }),
    },
    resultTtlMs: config.jobs.result_ttl_seconds * 1000,
    clock: opts.clock,
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
  const service: JobsService = {
    mediaToolAvailable: async () => (await findExecutable(config.media_tool)) !== undefined,
    submit: (spec) => queue.submit(spec),
    get: (id) => queue.get(id),
    isExpired: (job) => queue.isExpired(job),
    resultPath: (id) => store.resultPath(id),
    isKnownPeer: (addr) => peers.isKnownPeer(addr),
  };
  return { service, queue, close: () => queue.close() };
}
