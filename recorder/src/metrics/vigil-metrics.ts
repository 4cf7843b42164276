// The recorder's own Prometheus registry: process defaults plus every vigil_* series (see docs/metrics.md).
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { registerCameraSeries, type CameraStats } from './camera-series.js';
import { registerJobMetrics, type JobMetrics } from './job-metrics.js';
import { registerRecordPathSeries, type DiskSpace } from './record-path-series.js';

/** Live values read at scrape time; every source is optional so a node without a database has no outbox series. */
export interface MetricsSources {
  cameras(): CameraStats[];
  /** Rows waiting in the database outbox; undefined without a database. */
  outboxDepth?(): number;
  /** Failed deliveries of outbox rows to the database since start; undefined without a database. */
  outboxDeliveryErrors?(): number;
  /** Segments deleted by retention since start, by reason. */
  retentionDeletions(): { max_age: number; min_free: number };
  /** Free (for unprivileged writers) and total bytes of the record_path file system. */
  recordPathSpace(): Promise<DiskSpace>;
  /** retention.min_free_percent: the share of record_path retention keeps free. */
  retentionMinFreePercent: number;
  /** The end of the certificate the API serves; undefined without TLS. */
  tlsCertificateNotAfter?(): Date;
  /** Long-lived answers open now: live viewers (WebSocket) and play streams. */
  openStreams(kind: 'live' | 'play'): number;
}

/** Called by the snapshot service (snapshot/ knows nothing of Prometheus). */
export interface SnapshotObserver {
  /** The still came from the cache or from a fetch already running (no new camera request). */
  hit(): void;
  /** The request started a camera fetch. */
  miss(): void;
  /** A camera fetch ended after this long. */
  upstream(seconds: number, outcome: 'ok' | 'error'): void;
}

/** Called once per answered HTTP request; `route` is the route pattern (e.g. /api/archive/:camera_id/current), never the raw URL. */
export type RequestObserver = (method: string, route: string, status: number, seconds: number) => void;

export interface VigilMetrics {
  registry: Registry;
  jobs: JobMetrics;
  snapshots: SnapshotObserver;
  observeRequest: RequestObserver;
}

export function createVigilMetrics(sources: MetricsSources): VigilMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  registerCameraSeries(registry, () => sources.cameras());
  const jobs = registerJobMetrics(registry);

  const hits = new Counter({ name: 'vigil_snapshot_cache_hits_total', help: 'Snapshot requests answered without a new camera fetch', registers: [registry] });
  const misses = new Counter({ name: 'vigil_snapshot_cache_misses_total', help: 'Snapshot requests that started a camera fetch', registers: [registry] });
  const upstream = new Histogram({
    name: 'vigil_snapshot_upstream_seconds',
    help: 'Duration of camera still fetches',
    labelNames: ['outcome'],
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const http = new Histogram({
    name: 'vigil_http_request_duration_seconds',
    help: 'HTTP API request duration by method, route pattern and status code',
    labelNames: ['method', 'route', 'status_code'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
    registers: [registry],
  });
  const outboxDepth = sources.outboxDepth;
  if (outboxDepth !== undefined) {
    new Gauge({
      name: 'vigil_outbox_depth',
      help: 'Recordings-table changes waiting in the durable outbox for the database',
      registers: [registry],
      collect() {
        this.set(outboxDepth());
      },
    });
  }
  const outboxErrors = sources.outboxDeliveryErrors;
  if (outboxErrors !== undefined) {
    new Counter({
      name: 'vigil_outbox_delivery_errors_total',
      help: 'Failed attempts to write waiting recordings-table changes to the database (each retried with backoff)',
      registers: [registry],
      collect() {
        this.reset();
        this.inc(outboxErrors());
      },
    });
  }
  new Counter({
    name: 'vigil_retention_deletions_total',
    help: 'Segments deleted by retention, by reason (max_age, min_free)',
    labelNames: ['reason'],
    registers: [registry],
    collect() {
      this.reset();
      const d = sources.retentionDeletions();
      this.inc({ reason: 'max_age' }, d.max_age);
      this.inc({ reason: 'min_free' }, d.min_free);
    },
  });
  const tlsNotAfter = sources.tlsCertificateNotAfter;
  if (tlsNotAfter !== undefined) {
    new Gauge({
      name: 'vigil_tls_certificate_expiry_timestamp_seconds',
      help: 'End of validity (notAfter) of the certificate the API serves, in seconds since the epoch',
      registers: [registry],
      collect() {
        this.set(Math.floor(tlsNotAfter().getTime() / 1000));
      },
    });
  }
  registerRecordPathSeries(registry, () => sources.recordPathSpace(), sources.retentionMinFreePercent);
  new Gauge({
    name: 'vigil_open_streams',
    help: 'Long-lived answers open now, by kind: live (WebSocket viewers) and play (archive play streams)',
    labelNames: ['kind'],
    registers: [registry],
    collect() {
      for (const kind of ['live', 'play'] as const) this.set({ kind }, sources.openStreams(kind));
    },
  });

  return {
    registry,
    jobs,
    snapshots: {
      hit: () => hits.inc(),
      miss: () => misses.inc(),
      upstream: (seconds, outcome) => upstream.observe({ outcome }, seconds),
    },
    observeRequest: (method, route, status, seconds) => http.observe({ method, route, status_code: String(status) }, seconds),
  };
}
