// Assembles a running recorder from a validated configuration: cameras, recording, archive, HTTP.
import { mkdir } from 'node:fs/promises';
import type { Logger } from 'pino';
import { ArchiveCatalog } from './archive/archive-catalog.js';
import { nodeClock } from './archive/day-clock.js';
import { memoryArchiveSource } from './archive/memory-archive-source.js';
import { readDiskSpace, type DiskSpaceReader } from './archive/disk-space.js';
import { RetentionCleaner } from './archive/retention.js';
import { SegmentEndCache } from './archive/segment-end-cache.js';
import { SegmentIndex } from './archive/segment-index.js';
import { FILE_SOURCE, camerasFromConfig } from './cameras/file-source.js';
import type { CameraRegistry } from './cameras/registry.js';
import { resolveListen } from './config/listen.js';
import type { VigilConfig } from './config/schema.js';
import { CameraFleet } from './fleet/camera-fleet.js';
import { buildApp } from './http/app.js';
import { TokenAuthenticator } from './http/auth.js';
import { PtzService } from './ptz/ptz-service.js';
import { SnapshotService } from './snapshot/snapshot-service.js';
import type { CameraControl } from './http/services.js';
import { OpenSegmentJournal } from './recording/open-journal.js';
import { RecordPathWatch } from './recording/record-path-watch.js';
import { remuxToProgressive } from './recording/remux.js';
import { repairOpenSegments } from './recording/segment-repair.js';
import { SequenceStore } from './recording/sequence-store.js';
import { startDatabaseNode } from './database-node.js';
import { createOperationsNode } from './operations-node.js';
import { readClusterToken, startJobsNode } from './jobs-node.js';
import type { ClosedSegment } from './recording/closed-segment.js';
import { listen } from './http/server.js';

export interface RecorderDeps {
  config: VigilConfig;
  nodeName: string;
  log: Logger;
  registry: CameraRegistry;
  version: string;
  diskSpace?: DiskSpaceReader;
}

export interface RunningRecorder {
  url: string;
  fleet: CameraFleet;
  index: SegmentIndex;
  retention: RetentionCleaner;
  /** Applies a re-read configuration's cameras (SIGHUP). */
  reloadCameras(config: VigilConfig): { added: string[]; updated: string[]; removed: string[] };
  /** Stops taking requests, closes every open segment durably. */
  shutdown(): Promise<void>;
}

export async function startRecorder(deps: RecorderDeps): Promise<RunningRecorder> {
  const { config, log, registry } = deps;
  const recordPath = new RecordPathWatch({ recordPath: config.record_path, log }); // never creates record_path
  await recordPath.start();
  await mkdir(config.work_dir, { recursive: true });
  const remux = (part: string, final: string): Promise<void> => remuxToProgressive(config.ffmpeg_path, part, final);
  const journal = new OpenSegmentJournal(config.work_dir);
  const sequences = new SequenceStore(config.work_dir, config.record_path);
  const index = new SegmentIndex();

  const db = config.database === undefined ? undefined : await startDatabaseNode({ database: config.database, config, nodeName: deps.nodeName, registry, log });
  const segmentClosed = async (seg: ClosedSegment): Promise<void> => {
    index.add(seg);
    await db?.segmentClosed(seg);
  };

  // Repair before recording starts: the files the previous run left open are few and known.
  await repairOpenSegments({ recordPath: config.record_path, journal, log, remux, onRepaired: segmentClosed });

  const fleet = new CameraFleet(registry, {
    recordPath: config.record_path,
    ffmpegPath: config.ffmpeg_path,
    stallSeconds: config.stall_seconds,
    sequences,
    journal,
    log,
    remux,
    onSegmentClosed: segmentClosed,
    recordPathState: recordPath,
  });
  registry.publish(FILE_SOURCE, camerasFromConfig(config));
  await db?.startCameraSource();

  // Called once per walked file: look only at the camera the path names (its first component).
  const isOpen = (filename: string): boolean => fleet.runtime(filename.slice(0, filename.indexOf('/')))?.currentSegment()?.filename === filename;
  const catalog = new ArchiveCatalog({
    recordPath: config.record_path,
    index,
    log,
    isOpen,
    endCache: new SegmentEndCache(config.work_dir),
    onReconciled: (added, removed) => {
      void (async () => {
        for (const seg of added) await db?.segmentClosed(seg);
        await db?.segmentsRemoved(removed);
      })().catch((err: unknown) => log.error({ err: String(err) }, 'cannot queue rescan changes for the database'));
    },
  });
  const walking = catalog.startInitialWalk();
  recordPath.onChange((present) => {
    if (present) void catalog.rescan().catch((err: unknown) => log.error({ err: String(err) }, 'archive rescan failed'));
  });
  const rescanTimer = setInterval(() => {
    void catalog.rescan().catch((err: unknown) => log.error({ err: String(err) }, 'archive rescan failed'));
  }, config.archive.rescan_minutes * 60_000);

  let retentionConfig = config.record.retention;
  const retention = new RetentionCleaner({
    recordPath: config.record_path,
    index,
    log,
    diskSpace: deps.diskSpace ?? readDiskSpace,
    get minFreePercent() {
      return retentionConfig.min_free_percent;
    },
    maxAgeDays: (cameraId) => registry.get(cameraId)?.record.maxAgeDays ?? retentionConfig.max_age_days,
    onDeleted: (seg) => void db?.segmentsRemoved([seg]).catch((err: unknown) => log.error({ err: String(err) }, 'cannot queue a retention deletion for the database')),
  });
  const retentionTimer = setInterval(() => {
    void walking.then(() => retention.run()).catch((err: unknown) => log.error({ err: String(err) }, 'retention pass failed'));
  }, config.record.retention.interval_seconds * 1000);

  const cameraControl: CameraControl = {
    state: (id) => fleet.state(id),
    currentSegment: (id) => {
      const rt = fleet.runtime(id);
      return rt?.camera.record.format === 'fmp4' ? rt.currentSegment() : undefined;
    },
    startByRequest: (id) => fleet.startByRequest(id),
    stopByRequest: (id) => fleet.stopByRequest(id),
    list: () => registry.list().map((cam) => ({ id: cam.id, ptz: cam.ptz })),
    liveHub: (id) => fleet.runtime(id)?.hub,
  };
  const clusterToken = readClusterToken(config, log);
  const auth = new TokenAuthenticator(config.auth.tokens, config.auth.disabled, clusterToken);
  const operations = createOperationsNode({ config, nodeName: deps.nodeName, log, fleet, retention, db });
  const jobs = await startJobsNode({ config, log, index, catalog, fleet, metrics: operations.metrics.jobs }, clusterToken);
  const snapshots = new SnapshotService({ cameras: registry, log, now: () => Date.now(), observer: operations.metrics.snapshots });
  const ptz = new PtzService({ cameras: registry, log });
  const archive = {
    archive: db?.archive ?? memoryArchiveSource(catalog, index),
    openSegment: (id: string) => fleet.runtime(id)?.currentSegment(),
    finishingSegments: (id: string): ClosedSegment[] => {
      const rt = fleet.runtime(id);
      const open = rt?.currentSegment()?.filename;
      return (rt?.unindexedSegments() ?? [])
        .filter((s) => s.filename !== open)
        .map((s) => ({ cameraId: id, filename: s.filename, start: s.start, end: new Date(), sequence: s.sequence, size: s.size, mtime: Math.floor(Date.now() / 1000) }));
    },
    nodeClock: nodeClock(),
    now: () => Date.now(),
  };
  const app = await buildApp({ log, version: deps.version, auth, cameras: cameraControl, archive, stallSeconds: config.stall_seconds, snapshots, ptz, jobs: jobs.service, operations: operations.app });
  const server = await listen(app, resolveListen(config.listen, config.auth.disabled));
  log.info({ url: server.url, node: deps.nodeName, cameras: registry.list().length }, `listening on ${server.url}`);
  await operations.listen();

  return {
    url: server.url,
    fleet,
    index,
    retention,
    reloadCameras: (next) => {
      retentionConfig = next.record.retention;
      return registry.publish(FILE_SOURCE, camerasFromConfig(next));
    },
    shutdown: async () => {
      clearInterval(retentionTimer);
      clearInterval(rescanTimer);
      recordPath.stop();
      const closingServer = server.close();
      await jobs.close();
      await fleet.shutdown();
      await sequences.flush();
      await closingServer;
      await db?.close();
      await snapshots.close();
      await operations.close();
    },
  };
}
