// Builds the fastify application (routes, validation, errors, auth); it never listens — server.ts does.
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import type { Logger } from 'pino';
import type { CameraLocator } from '../cameras/camera-locator.js';
import type { TokenAuthenticator } from './auth.js';
import { installCameraRouting } from './camera-routing.js';
import { installCrossOrigin } from './cross-origin.js';
import { installCertificateGate, type CertificateWait } from './certificate-gate.js';
import { clientErrorHandler, frameworkErrors } from './client-errors.js';
import { installErrorHandling } from './error-handler.js';
import { installLiveSocket } from './live-socket.js';
import type { LiveLimits } from './live-viewer.js';
import { OpenStreams, streamLimits } from './open-streams.js';
import { archiveCurrentRoutes } from './routes/archive-current.js';
import { archiveJobRoutes, type JobsService } from './routes/archive-jobs.js';
import { archivePlayRoutes } from './routes/archive-play.js';
import { archiveSegmentFileRoutes } from './routes/archive-segment-file.js';
import { jobStatusRoutes } from './routes/job-status.js';
import { archiveSegmentsRoutes, type SegmentsRouteOptions } from './routes/archive-segments.js';
import { cameraControlRoutes } from './routes/cameras-control.js';
import { cameraListRoutes } from './routes/cameras-list.js';
import { clusterRoutes, type ClusterControl } from './routes/cluster.js';
import { healthRoutes } from './routes/health.js';
import { readyRoutes, type ReadinessSource } from './routes/health-ready.js';
import { nodeMetricsRoutes } from './routes/node-metrics.js';
import { installOpenApi } from './openapi.js';
import { installRequestMetrics, type RequestObserver } from './request-metrics.js';
import type { NodeMetricsRecord } from '../metrics/node-metrics.js';
import { ptzRoutes, type PtzControl } from './routes/ptz.js';
import { snapshotRoutes, type SnapshotSource } from './routes/snapshot.js';
import { ticketRoutes } from './routes/tickets.js';
import { webPageRoutes } from './routes/web-page.js';
import type { CameraControl, PlaybackService } from './services.js';

export interface AppDeps {
  log: Logger;
  version: string;
  auth: TokenAuthenticator;
  cameras: CameraControl;
  /** Where a camera is recorded: here, by another node (307), or nowhere (404). */
  locator: CameraLocator;
  /** The segment listing's archive source, open segments and clocks. */
  archive: Omit<SegmentsRouteOptions, 'auth'>;
  /** Segment files and windows cut across them (playback/). */
  playback: PlaybackService;
  /** Export, time-lapse and assembly jobs (jobs/). */
  jobs: JobsService;
  /** Camera stills, cached and single-flight (snapshot/). */
  snapshots: SnapshotSource;
  /** ONVIF PTZ commands (ptz/). */
  ptz: PtzControl;
  /** A live viewer of a camera not streaming yet waits this long for its first picture. */
  stallSeconds: number;
  /** Live viewer queue, socket buffer and ping bounds (defaults in live-viewer.ts). */
  liveLimits?: Partial<LiveLimits>;
  /** Open live viewers and play streams, limited per node and per token (config `streams`); default: that key's defaults. */
  streams?: OpenStreams;
  /** The spec's cluster endpoints; undefined outside cluster mode (they answer 404 not_clustered). */
  cluster?: ClusterControl | undefined;
  /** Readiness checks, the node metrics record and request timing (Prometheus). */
  operations: { readiness: ReadinessSource; nodeMetrics(): Promise<NodeMetricsRecord>; observeRequest?: RequestObserver };
  /** What the node waits for before its API is served (tls.kubernetes_csr); absent: always served. */
  certificateWait?: CertificateWait;
  /** Where the bundled page lives (default dist/web). */
  webRoot?: string;
}

export const BODY_LIMIT_BYTES = 64 * 1024;

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const streams = deps.streams ?? new OpenStreams(streamLimits());
  const app = Fastify({
    // Request lines are info; the HTTP logger shows warnings and errors only.
    loggerInstance: deps.log.child({ component: 'http' }, { level: 'warn' }) as FastifyBaseLogger,
    bodyLimit: BODY_LIMIT_BYTES,
    forceCloseConnections: true,
    // Errors raised before any route runs (the HTTP parser, the router) get the same error body as everything else.
    frameworkErrors,
    clientErrorHandler,
  });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  installErrorHandling(app);
  await installOpenApi(app, deps.version); // before every route: swagger collects routes as they are added
  if (deps.operations.observeRequest !== undefined) installRequestMetrics(app, deps.operations.observeRequest);
  installCameraRouting(app, deps.locator);
  installCrossOrigin(app);
  if (deps.certificateWait !== undefined) installCertificateGate(app, deps.certificateWait);
  await app.register(healthRoutes, { version: deps.version });
  await app.register(readyRoutes, { version: deps.version, auth: deps.auth, readiness: deps.operations.readiness });
  await app.register(nodeMetricsRoutes, { auth: deps.auth, read: deps.operations.nodeMetrics });
  await app.register(archiveCurrentRoutes, { auth: deps.auth, cameras: deps.cameras });
  await app.register(archiveSegmentsRoutes, { auth: deps.auth, ...deps.archive });
  await app.register(archiveSegmentFileRoutes, { auth: deps.auth, playback: deps.playback });
  await app.register(archivePlayRoutes, { auth: deps.auth, cameras: deps.cameras, playback: deps.playback, streams });
  await app.register(archiveJobRoutes, { auth: deps.auth, jobs: deps.jobs });
  await app.register(jobStatusRoutes, { auth: deps.auth, jobs: deps.jobs });
  await app.register(cameraControlRoutes, { auth: deps.auth, cameras: deps.cameras });
  await app.register(cameraListRoutes, { auth: deps.auth, cameras: deps.cameras, locator: deps.locator });
  await app.register(snapshotRoutes, { auth: deps.auth, snapshots: deps.snapshots });
  await app.register(ptzRoutes, { auth: deps.auth, ptz: deps.ptz });
  await app.register(ticketRoutes, { auth: deps.auth });
  await app.register(clusterRoutes, { auth: deps.auth, cluster: deps.cluster });
  await app.register(webPageRoutes, {
    ...(deps.webRoot === undefined ? {} : { webRoot: deps.webRoot }),
    onMissing: (root) => deps.log.warn({ root }, 'the live-view page is not built (npm run build); GET / answers 404'),
  });
  installLiveSocket(app, {
    auth: deps.auth,
    cameras: deps.cameras,
    locator: deps.locator,
    log: deps.log,
    waitForStreamMs: deps.stallSeconds * 1000,
    streams,
    ...(deps.certificateWait === undefined ? {} : { certificateWait: deps.certificateWait }),
    ...(deps.liveLimits === undefined ? {} : { limits: deps.liveLimits }),
  });
  return app;
}
