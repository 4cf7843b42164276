// Test support: the real buildApp (every route, hook, limit and error rule) over fakes the test chooses.
import type { TestContext } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { Camera } from '../../src/cameras/camera.js';
import { localCameraLocator, type CameraLocator } from '../../src/cameras/camera-locator.js';
import { CameraRegistry } from '../../src/cameras/registry.js';
import { nodeClock } from '../../src/archive/day-clock.js';
import type { ArchiveSource } from '../../src/archive/segment-listing.js';
import type { ReadinessReport } from '../../src/health/readiness.js';
import { buildApp } from '../../src/http/app.js';
import { TokenAuthenticator } from '../../src/http/auth.js';
import type { LiveLimits } from '../../src/http/live-viewer.js';
import type { JobsService } from '../../src/http/routes/archive-jobs.js';
import type { PtzControl } from '../../src/http/routes/ptz.js';
import type { SnapshotSource } from '../../src/http/routes/snapshot.js';
import type { CameraControl, PlaybackService } from '../../src/http/services.js';
import type { Logger } from '../../src/log/logger.js';
import type { NodeMetricsRecord } from '../../src/metrics/node-metrics.js';
import type { OpenSegmentInfo } from '../../src/recording/closed-segment.js';
import { EMPTY_ARCHIVE, mapLocator, NO_JOBS, NO_PLAYBACK, NO_PTZ, NO_SNAPSHOTS, READY, testLogger } from './fakes.js';
import { sha256 } from './recorder-process.js';

/** Bearer tokens of the test app, one per role. */
export const TOKENS = { viewer: 'viewer-token-6', operator: 'operator-token-6', admin: 'admin-token-6' } as const;
export const CLUSTER_TOKEN = 'cluster-token-6';

export interface TestAppOptions {
  cameras: CameraControl;
  /** Default: a camera is local when `cameras.state` knows it, else unknown. */
  locator?: CameraLocator;
  archive?: ArchiveSource;
  openSegment?(cameraId: string): OpenSegmentInfo | undefined;
  jobs?: JobsService;
  playback?: PlaybackService;
  snapshots?: SnapshotSource;
  ptz?: PtzControl;
  readiness?: ReadinessReport;
  authDisabled?: boolean;
  stallSeconds?: number;
  liveLimits?: Partial<LiveLimits>;
  version?: string;
  log?: Logger;
}

export interface TestApp {
  app: FastifyInstance;
  log: Logger;
  /** Every log line written so far. */
  logText(): string;
}

export async function buildTestApp(opts: TestAppOptions): Promise<TestApp> {
  const logged = testLogger();
  const log = opts.log ?? logged.log;
  const auth = new TokenAuthenticator(
    [
      { name: 'wall', role: 'viewer', sha256: sha256(TOKENS.viewer) },
      { name: 'ops', role: 'operator', sha256: sha256(TOKENS.operator) },
      { name: 'root', role: 'admin', sha256: sha256(TOKENS.admin) },
    ],
    opts.authDisabled ?? false,
    () => CLUSTER_TOKEN,
  );
  const metrics: NodeMetricsRecord = { online: true, node_name: 'test-node', cpu_load: 0, mem_used_gb: 0, mem_total_gb: 0, storage_free_gb: 0, storage_used_gb: 0, timestamp: new Date().toISOString() };
  const app = await buildApp({
    log,
    version: opts.version ?? '0.0.0-test',
    auth,
    cameras: opts.cameras,
    locator: opts.locator ?? mapLocator((id) => opts.cameras.state(id) !== undefined),
    archive: {
      archive: opts.archive ?? EMPTY_ARCHIVE,
      openSegment: (id) => opts.openSegment?.(id),
      finishingSegments: () => [],
      nodeClock: nodeClock(),
      now: () => Date.now(),
    },
    jobs: opts.jobs ?? NO_JOBS,
    playback: opts.playback ?? NO_PLAYBACK,
    snapshots: opts.snapshots ?? NO_SNAPSHOTS,
    ptz: opts.ptz ?? NO_PTZ,
    stallSeconds: opts.stallSeconds ?? 10,
    ...(opts.liveLimits === undefined ? {} : { liveLimits: opts.liveLimits }),
    operations: { readiness: { evaluate: async () => opts.readiness ?? READY }, nodeMetrics: async () => metrics },
  });
  return { app, log, logText: logged.text };
}

/** The app listening on a loopback port, closed when the test ends. */
export async function listenTestApp(t: TestContext, opts: TestAppOptions): Promise<TestApp & { url: string; wsUrl: string }> {
  const built = await buildTestApp(opts);
  await built.app.listen({ host: '127.0.0.1', port: 0 });
  t.after(() => built.app.close());
  const address = built.app.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return { ...built, url: `http://127.0.0.1:${port}`, wsUrl: `ws://127.0.0.1:${port}` };
}

/** Real camera services (snapshots, PTZ) over a real registry of `cameras`, mounted in the real app. */
export async function buildServiceApp(
  cameras: Camera[],
  services: (registry: CameraRegistry, log: Logger) => { snapshots?: SnapshotSource; ptz?: PtzControl },
): Promise<TestApp & { registry: CameraRegistry }> {
  const registry = new CameraRegistry();
  registry.publish('file', cameras);
  const logged = testLogger();
  const deps = services(registry, logged.log);
  const control: CameraControl = {
    state: (id) => (registry.get(id) === undefined ? undefined : 'stopped'),
    currentSegment: () => undefined,
    startByRequest: () => 0,
    stopByRequest: async () => 0,
    list: () => registry.list().map((c) => ({ id: c.id, ptz: c.ptz })),
    liveHub: () => undefined,
    ingest: () => undefined,
  };
  const built = await buildTestApp({ cameras: control, locator: localCameraLocator(registry, 'test-node'), log: logged.log, ...deps });
  return { ...built, logText: logged.text, registry };
}
