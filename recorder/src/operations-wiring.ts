// Wires the operations surface into a recorder: license, readiness checks, node metrics, Prometheus registry and listener.
import type { Logger } from 'pino';
import { readDiskSpace } from './archive/disk-space.js';
import type { RetentionCleaner } from './archive/retention.js';
import { resolveListen } from './config/listen.js';
import type { VigilConfig } from './config/schema.js';
import type { CameraFleet } from './fleet/camera-fleet.js';
import type { CameraRuntime } from './fleet/camera-runtime.js';
import { clusterStoreCheck } from './health/cluster-store-check.js';
import { licenseCheck } from './health/license-check.js';
import { ReadinessChecks } from './health/readiness.js';
import { recordingsDirCheck } from './health/recordings-dir-check.js';
import { storageCheck } from './health/storage-check.js';
import { tlsCheck, type ServedCertificate } from './health/tls-check.js';
import type { AppDeps } from './http/app.js';
import { startMetricsListener, type MetricsListener } from './http/metrics-listener.js';
import { LicenseMonitor } from './license/license-monitor.js';
import type { CameraStats } from './metrics/camera-series.js';
import { readNodeMetrics } from './metrics/node-metrics.js';
import { createVigilMetrics, type VigilMetrics } from './metrics/vigil-metrics.js';
import type { RecorderMode } from './modes/recorder-mode.js';
import type { Clock } from './util/clock.js';

export interface OperationsOptions {
  config: VigilConfig;
  nodeName: string;
  log: Logger;
  fleet: CameraFleet<CameraRuntime>;
  retention: RetentionCleaner;
  mode: RecorderMode;
  clock: Clock;
  /** The certificate the API serves; undefined when `tls` is not set. */
  certificate?: ServedCertificate | undefined;
  /** Live viewers and play streams open now. */
  openStreams(kind: 'live' | 'play'): number;
}

export interface Operations {
  metrics: VigilMetrics;
  /** What buildApp needs for /api/health/ready, /api/metrics and request timing. */
  app: AppDeps['operations'];
  /** Starts the Prometheus listener; a port that cannot be bound is logged, never fatal (recording matters more). */
  listen(): Promise<void>;
  close(): Promise<void>;
}

export function cameraStats(fleet: CameraFleet<CameraRuntime>): CameraStats[] {
  return fleet.runtimes().map((rt) => {
    const hub = rt.hub.counters;
    const own = rt.counters;
    return {
      id: rt.camera.id,
      bytes: hub.bytes,
      fragments: hub.fragments,
      restarts: own.restarts,
      stalls: own.stalls,
      fallbacks: own.fallbacks,
      segmentsClosed: own.segmentsClosed,
      writeErrors: own.writeErrors,
      dropped: hub.dropped,
      viewers: hub.viewers,
      lastFragmentAt: rt.hub.lastFragmentAt,
    };
  });
}

export function createOperations(opts: OperationsOptions): Operations {
  const { config, log, fleet, retention, mode, certificate } = opts;
  const license = new LicenseMonitor({ file: config.license_file, publicKey: config.license.public_key, required: config.license.required }, log, opts.clock);
  const healthLog = log.child({ component: 'readiness' });
  let lastDirFailure: string | undefined;
  let lastExpiryWarned: string | undefined;
  const readiness = new ReadinessChecks([
    storageCheck(mode.storagePing),
    clusterStoreCheck(mode.clusterStore),
    recordingsDirCheck({
      recordPath: config.record_path,
      onFailure: (reason) => {
        if (reason !== lastDirFailure) healthLog.error({ reason }, 'the recordings directory is not writable; readiness fails');
        lastDirFailure = reason;
      },
    }),
    licenseCheck(license),
    tlsCheck(certificate, () => opts.clock.now(), {
      onExpiring: (notAfter) => {
        if (`expiring ${notAfter.getTime()}` === lastExpiryWarned) return;
        lastExpiryWarned = `expiring ${notAfter.getTime()}`;
        healthLog.warn({ not_after: notAfter.toISOString() }, `the API's certificate ends at ${notAfter.toISOString()} and has not been renewed; it is served until then (readiness passes), renew it before`);
      },
      onExpired: (notAfter) => {
        if (`expired ${notAfter.getTime()}` === lastExpiryWarned) return;
        lastExpiryWarned = `expired ${notAfter.getTime()}`;
        healthLog.error({ not_after: notAfter.toISOString() }, `the API's certificate ended at ${notAfter.toISOString()}; clients refuse it, readiness fails (check tls) until a renewed one is in place`);
      },
    }),
  ]);
  // Warm the probes (the first write under record_path, the first database connection) before the first caller.
  void readiness.evaluate();
  const outbox = mode.outbox;
  const metrics = createVigilMetrics({
    cameras: () => cameraStats(fleet),
    ...(outbox === undefined ? {} : { outboxDepth: () => outbox.depth, outboxDeliveryErrors: () => outbox.deliveryErrors }),
    ...(certificate === undefined ? {} : { tlsCertificateNotAfter: () => certificate.notAfter() }),
    retentionDeletions: () => retention.deletions,
    recordPathSpace: () => readDiskSpace(config.record_path),
    retentionMinFreePercent: config.record.retention.min_free_percent,
    openStreams: opts.openStreams,
  });
  let listener: MetricsListener | undefined;
  return {
    metrics,
    app: {
      readiness,
      nodeMetrics: () => readNodeMetrics(opts.nodeName, config.record_path),
      observeRequest: metrics.observeRequest,
    },
    listen: async () => {
      const addr = resolveListen(config.metrics.listen, config.auth.disabled);
      try {
        listener = await startMetricsListener(metrics.registry, addr);
        log.info({ metrics_url: listener.url }, `Prometheus metrics on ${listener.url}`);
      } catch (err) {
        log.error({ key: 'metrics.listen', err: (err as Error).message }, `metrics.listen: cannot listen on ${addr.host}:${addr.port}; Prometheus metrics are off, recording goes on`);
      }
    },
    close: async () => {
      await listener?.close();
    },
  };
}
