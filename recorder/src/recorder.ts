// Assembles a running recorder from a validated configuration and its mode: cameras, recording, archive, jobs, HTTP.
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
import { NativeRunner } from './ingest/native-runner.js';
import { TransportMemory } from './ingest/transport-memory.js';
import { RtspRelay } from './rtsp/rtsp-relay.js';
import { ReadScheduler } from './rtsp/read-scheduler.js';
import { WriteScheduler } from './recording/write-scheduler.js';
import { CameraRuntime, type CameraRuntimeDeps } from './fleet/camera-runtime.js';
import { CameraFiles } from './archive/camera-files.js';
import { buildApp } from './http/app.js';
import { OpenStreams, streamLimits } from './http/open-streams.js';
import { TokenAuthenticator } from './http/auth.js';
import { listen, type RunningServer } from './http/server.js';
import type { CameraControl } from './http/services.js';
import { startJobs } from './jobs-wiring.js';
import { startRecorderMode } from './modes/select-mode.js';
import type { RecorderMode } from './modes/recorder-mode.js';
import { expiryMarginMs, type ServedCertificate } from './health/tls-check.js';
import { createOperations } from './operations-wiring.js';
import { playbackService } from './playback-wiring.js';
import { apiTokens } from './api-tokens.js';
import { fileClusterToken } from './peers/cluster-token.js';
import { peerClient } from './peers/peer-client.js';
import { PtzService } from './ptz/ptz-service.js';
import type { ClosedSegment } from './recording/closed-segment.js';
import { OpenSegmentJournal } from './recording/open-journal.js';
import { RecordPathWatch } from './recording/record-path-watch.js';
import { remuxToProgressive } from './recording/remux.js';
import { WorkDirLock } from './process/work-dir-lock.js';
import { repairOpenSegments } from './recording/segment-repair.js';
import { SequenceStore } from './recording/sequence-store.js';
import { SnapshotService } from './snapshot/snapshot-service.js';
import { ServingCertificate } from './tls/serving-certificate.js';
import { ensureNodeKey } from './tls/node-key.js';
import type { ModeContext } from './modes/recorder-mode.js';
import { systemClock, type Clock } from './util/clock.js';

export interface RecorderDeps {
  config: VigilConfig;
  nodeName: string;
  log: Logger;
  registry: CameraRegistry;
  version: string;
  diskSpace?: DiskSpaceReader;
  clock?: Clock;
  /** The process environment (cluster mode reads KUBECONFIG); default none. */
  env?: Readonly<Record<string, string | undefined>>;
  /** The certificate of `tls`, loaded by the caller (main refuses to start without a good one); loaded here when not given. */
  certificate?: ServingCertificate;
  /**
   * Called when the lock on work_dir is lost while recording (its keeper process was killed): another recorder may
   * take the directory now, so this one must stop writing at once. Default: exit with status 1 without closing the
   * open segments (they are in the journal; the next holder repairs them, as after a crash).
   */
  onWorkDirLockLost?: () => void;
}

export interface RunningRecorder {
  url: string;
  mode: RecorderMode;
  fleet: CameraFleet<CameraRuntime>;
  index: SegmentIndex;
  retention: RetentionCleaner;
  /** Applies a re-read configuration's cameras (SIGHUP). */
  reloadCameras(config: VigilConfig): { added: string[]; updated: string[]; removed: string[] };
  /** Reads the `tls` files again now (SIGHUP); resolves with whether the served certificate changed. */
  reloadCertificate(): Promise<boolean>;
  /** Stops taking requests, closes every open segment durably. */
  shutdown(): Promise<void>;
}

/** What the HTTP layer asks of the cameras: the fleet for what runs, the registry for what is known. */
function cameraControl(fleet: CameraFleet<CameraRuntime>, registry: CameraRegistry): CameraControl {
  return {
    state: (id) => fleet.state(id),
    currentSegment: (id) => {
      const rt = fleet.runtime(id);
      return rt?.camera.record.format === 'fmp4' ? rt.currentSegment() : undefined;
    },
    startByRequest: (id) => fleet.startByRequest(id),
    stopByRequest: (id) => fleet.stopByRequest(id),
    list: () => registry.list().map((cam) => ({ id: cam.id, ptz: cam.ptz })),
    liveHub: (id) => fleet.runtime(id)?.hub,
    ingest: (id) => fleet.runtime(id)?.ingest,
  };
}

/** Ends the process now: no close, no sync, no journal change (the crash path the journal exists for). */
function exitAtOnce(): void {
  process.exit(1);
}

export async function startRecorder(deps: RecorderDeps): Promise<RunningRecorder> {
  const { config, log, registry } = deps;
  const clock = deps.clock ?? systemClock;
  const tls = config.tls;
  let nodeCertificate: ModeContext['nodeCertificate'];
  let certificate = deps.certificate;
  if (certificate === undefined && tls?.kubernetes_csr !== undefined) {
    // The node's own key (made here when it has none) and, until one is issued, a provisional pair (kubernetes.md).
    // Loaded only here: it reaches the Kubernetes client, which a recorder outside a cluster must not carry (most of
    // its heap, walked by every full garbage collection; see select-mode.ts).
    const { nodeCertificateFiles, provisionalPair } = await import('./cluster/node-certificate-files.js');
    const files = nodeCertificateFiles(config.cluster.dataDir, deps.nodeName);
    const key = await ensureNodeKey(files.keyFile, log);
    certificate = await ServingCertificate.awaiting({ ...files, log, clock, provisional: provisionalPair(key, tls.kubernetes_csr.dns_names, clock.now()) });
    nodeCertificate = { files, key, served: certificate };
  } else if (certificate === undefined && tls?.cert_file !== undefined && tls.key_file !== undefined) {
    certificate = await ServingCertificate.load({ certFile: tls.cert_file, keyFile: tls.key_file, log, clock });
  }
  const recordPath = new RecordPathWatch({ recordPath: config.record_path, log }); // never creates record_path
  await recordPath.start();
  await mkdir(config.work_dir, { recursive: true });
  // Before anything touches work_dir (above all the repair of open segments): one recorder per work_dir.
  let lock: WorkDirLock;
  try {
    lock = await WorkDirLock.take(config.work_dir, {
      onLost: (why) => {
        log.fatal({ work_dir: config.work_dir, reason: why }, 'lost the lock on work_dir: another recorder may take it now; stopping at once, open segments stay in the journal for the next holder to repair');
        (deps.onWorkDirLockLost ?? exitAtOnce)();
      },
    });
  } catch (err) {
    recordPath.stop();
    throw err;
  }
  const remux = (part: string, final: string): Promise<void> => remuxToProgressive(config.ffmpeg_path, part, final);
  const journal = new OpenSegmentJournal(config.work_dir);
  const sequences = new SequenceStore(config.work_dir, config.record_path);
  const index = new SegmentIndex();

  const served = certificate;
  // A node certificate of the CSR API may be short-lived: its expiry margin is the last sixth of its lifetime when that is under 7 days.
  const servedCertificate: ServedCertificate | undefined = served === undefined ? undefined : {
    notAfter: () => served.current.notAfter,
    waiting: () => served.waiting,
    ...(nodeCertificate === undefined ? {} : { notBefore: () => served.current.notBefore }),
  };
  const servedValidity = servedCertificate === undefined ? undefined : () => {
    if (servedCertificate.waiting?.() !== undefined) return undefined;
    const notAfter = servedCertificate.notAfter();
    return { notAfter, expiringFrom: new Date(notAfter.getTime() - expiryMarginMs(servedCertificate)) };
  };
  const mode = await startRecorderMode({
    config, nodeName: deps.nodeName, version: deps.version, env: deps.env ?? {}, log, registry, clock,
    ...(nodeCertificate === undefined ? {} : { nodeCertificate }), ...(servedValidity === undefined ? {} : { servedValidity }),
  });
  const segmentClosed = async (seg: ClosedSegment): Promise<void> => {
    index.add(seg);
    await mode.segmentClosed(seg);
  };

  // Repair before recording starts: the files the previous run left open are few and known.
  await repairOpenSegments({ recordPath: config.record_path, journal, log, remux, onRepaired: segmentClosed });

  // One for all native sessions: one shared read buffer, every camera's socket read together once per tick.
  const readScheduler = new ReadScheduler({ tickMs: config.ingest_read_tick_ms, idleTickMs: config.ingest_idle_read_tick_ms });
  // One for all segment writers: every camera's batch goes to the thread pool on the same tick.
  const writeScheduler = new WriteScheduler();
  // One for all ffmpeg runs that read an RTSP camera: they get a loopback URL, never the camera's password.
  const relay = new RtspRelay({ log: log.child({ component: 'rtsp-relay' }) });
  const runtimeDeps: CameraRuntimeDeps = {
    recordPath: config.record_path,
    ffmpegPath: config.ffmpeg_path,
    nativeRunner: (camera, cameraLog, transport) => new NativeRunner({ camera, log: cameraLog, readScheduler, transport, stallMs: config.stall_seconds * 1000 }),
    relay,
    transportMemory: new TransportMemory(config.work_dir),
    stallSeconds: config.stall_seconds,
    sequences,
    journal,
    log,
    remux,
    clock,
    onSegmentClosed: segmentClosed,
    recordPathState: recordPath,
    writeScheduler,
  };
  const fleet = new CameraFleet(registry, (camera) => new CameraRuntime(camera, runtimeDeps), log);
  registry.publish(FILE_SOURCE, camerasFromConfig(config));
  await mode.startCameraSources({ writing: (id) => fleet.runtime(id)?.currentSegment() !== undefined, count: () => fleet.runtimes().length });

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
        for (const seg of added) await mode.segmentClosed(seg);
        await mode.segmentsRemoved(removed);
      })().catch((err: unknown) => log.error({ err: String(err) }, 'cannot queue rescan changes for the database'));
    },
  });
  const walking = catalog.startInitialWalk();
  recordPath.onChange((present) => {
    if (present) void catalog.rescan().catch((err: unknown) => log.error({ err: String(err) }, 'archive rescan failed'));
  });
  const rescanTimer = clock.setInterval(() => {
    void catalog.rescan().catch((err: unknown) => log.error({ err: String(err) }, 'archive rescan failed'));
  }, config.archive.rescan_minutes * 60_000);

  let retentionConfig = config.record.retention;
  const retention = new RetentionCleaner({
    recordPath: config.record_path,
    index,
    log,
    clock,
    diskSpace: deps.diskSpace ?? readDiskSpace,
    get minFreePercent() {
      return retentionConfig.min_free_percent;
    },
    maxAgeDays: (cameraId) => registry.get(cameraId)?.record.maxAgeDays ?? retentionConfig.max_age_days,
    onDeleted: (seg) => void mode.segmentsRemoved([seg]).catch((err: unknown) => log.error({ err: String(err) }, 'cannot queue a retention deletion for the database')),
  });
  const retentionTimer = clock.setInterval(() => {
    void walking.then(() => retention.run()).catch((err: unknown) => log.error({ err: String(err) }, 'retention pass failed'));
  }, config.record.retention.interval_seconds * 1000);

  const clusterToken = fileClusterToken(config.auth.cluster_token_file, log, clock);
  const tokens = apiTokens(config, log, clock);
  const auth = new TokenAuthenticator(() => tokens.current(), config.auth.disabled, () => clusterToken.current());
  const openStreams = new OpenStreams(streamLimits(config.streams));
  const operations = createOperations({ config, nodeName: deps.nodeName, log, fleet, retention, mode, clock, certificate: servedCertificate, openStreams: (kind) => openStreams.count(kind) });
  const peers = peerClient({ caFile: config.cluster.tls?.ca_file, log, clock });
  // A camera's files now (index + writer): one view for the listing, playback and the jobs.
  const files = new CameraFiles({
    recordPath: config.record_path,
    index,
    catalog,
    writerFiles: (id) => fleet.runtime(id)?.unindexedSegments() ?? [],
    openFile: (id) => fleet.runtime(id)?.currentSegment(),
  });
  const jobs = await startJobs({ config, log, files, peers: mode.peers, peerClient: peers, clusterToken, clock, metrics: operations.metrics.jobs });
  const snapshots = new SnapshotService({ cameras: registry, log, now: () => clock.now(), observer: operations.metrics.snapshots });
  const ptz = new PtzService({ cameras: registry, log });
  const archive = {
    archive: mode.archive ?? memoryArchiveSource(catalog, index),
    openSegment: (id: string) => files.open(id),
    finishingSegments: (id: string): ClosedSegment[] => files.finishing(id, clock.now()),
    nodeClock: nodeClock(),
    now: () => clock.now(),
  };
  const app = await buildApp({
    log,
    version: deps.version,
    auth,
    cameras: cameraControl(fleet, registry),
    locator: mode.locator,
    cluster: mode.cluster,
    archive,
    stallSeconds: config.stall_seconds,
    streams: openStreams,
    snapshots,
    ptz,
    jobs: jobs.service,
    playback: playbackService({
      files,
      knowsCamera: (id) => registry.get(id) !== undefined,
      clock,
      log,
      followIdleMs: config.stall_seconds * 1000,
    }),
    operations: operations.app,
    ...(nodeCertificate === undefined ? {} : { certificateWait: () => served?.waiting }),
  });
  // Stops everything this function started, in order; the API server closes alongside (it may not be listening yet).
  const stopAll = async (server: RunningServer | undefined): Promise<void> => {
    clock.clearInterval(retentionTimer);
    clock.clearInterval(rescanTimer);
    recordPath.stop();
    certificate?.stop();
    const closingServer = server?.close();
    await jobs.close();
    await peers.close();
    await fleet.shutdown();
    await relay.close();
    await sequences.flush();
    await closingServer;
    await mode.close();
    await snapshots.close();
    await operations.close();
    await lock.release();
  };
  let server: RunningServer | undefined;
  try {
    server = await listen(app, resolveListen(config.listen, config.auth.disabled), { certificate, log });
    certificate?.start();
    log.info({ url: server.url, node: deps.nodeName, mode: mode.kind, cameras: registry.list().length }, `listening on ${server.url}`);
    await operations.listen();
  } catch (err) {
    // A recorder nobody can reach (its port taken, an address it cannot bind) stops: the cameras it started close
    // their open segments, and the caller exits with an error instead of recording unseen.
    log.error({ err: err instanceof Error ? err.message : String(err) }, 'cannot listen; stopping');
    await stopAll(server);
    throw err;
  }
  const api = server;

  return {
    url: api.url,
    mode,
    fleet,
    index,
    retention,
    reloadCameras: (next) => {
      retentionConfig = next.record.retention;
      return registry.publish(FILE_SOURCE, camerasFromConfig(next));
    },
    reloadCertificate: async () => (certificate === undefined ? false : certificate.reload()),
    shutdown: () => stopAll(api),
  };
}
