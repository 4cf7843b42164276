// The vigil_* registry: collect-time camera series, snapshot cache hits/misses from the real snapshot service, jobs, outbox.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { createVigilMetrics, type MetricsSources } from '../../src/metrics/vigil-metrics.js';
import { SnapshotService } from '../../src/snapshot/snapshot-service.js';
import { configCamera, testLogger } from '../support/fakes.js';
import { parsePrometheusText } from '@vigil/testing/prometheus-text';

const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10, 0x4a, 0x46, 0x49, 0x46, 0, 1, 0xff, 0xd9]);

function sources(over: Partial<MetricsSources> = {}): MetricsSources {
  return { cameras: () => [], retentionDeletions: () => ({ max_age: 0, min_free: 0 }), recordPathSpace: async () => ({ freeBytes: 1e9, totalBytes: 4e9 }), retentionMinFreePercent: 5, ...over, openStreams: over.openStreams ?? (() => 0) };
}

test('camera series are read at scrape time; a separate registry per recorder, no global state', async () => {
  const stats = { id: 'gate', bytes: 100, fragments: 2, restarts: 1, stalls: 0, fallbacks: 1, segmentsClosed: 0, writeErrors: 0, dropped: { recording: 0, live: 3 }, viewers: 1, lastFragmentAt: Date.now() - 2000 };
  const a = createVigilMetrics(sources({ cameras: () => [stats], outboxDepth: () => 7, outboxDeliveryErrors: () => 3 }));
  const b = createVigilMetrics(sources());
  let text = parsePrometheusText(await a.registry.metrics());
  assert.equal(text.value('vigil_camera_ingest_bytes_total', { camera: 'gate' }), 100);
  assert.equal(text.value('vigil_camera_fragments_dropped_total', { camera: 'gate', subscriber: 'live' }), 3);
  assert.ok(Math.abs((text.value('vigil_camera_seconds_since_last_fragment', { camera: 'gate' }) ?? 0) - 2) < 0.5);
  assert.equal(text.value('vigil_outbox_depth'), 7);
  assert.equal(text.value('vigil_outbox_delivery_errors_total'), 3);
  assert.equal(text.value('vigil_camera_segment_write_errors_total', { camera: 'gate' }), 0);
  // The disk and the floor retention keeps on it (5 % of 4 GB), for the alert on free space under the floor.
  assert.equal(text.value('vigil_record_path_free_bytes'), 1e9);
  assert.equal(text.value('vigil_record_path_size_bytes'), 4e9);
  assert.equal(text.value('vigil_retention_min_free_bytes'), 2e8);
  assert.equal(text.value('vigil_camera_ingest_fallbacks_total', { camera: 'gate' }), 1);
  stats.bytes = 250;
  text = parsePrometheusText(await a.registry.metrics());
  assert.equal(text.value('vigil_camera_ingest_bytes_total', { camera: 'gate' }), 250, 'follows the live counter');
  const other = parsePrometheusText(await b.registry.metrics());
  assert.equal(other.value('vigil_camera_ingest_bytes_total', { camera: 'gate' }), undefined);
  assert.equal(other.value('vigil_outbox_depth'), undefined);
  assert.equal(other.value('vigil_outbox_delivery_errors_total'), undefined);

  a.jobs.setCount('export', 'running', 2);
  a.jobs.observeDuration('export', 'done', 12);
  a.observeRequest('GET', '/api/cameras', 200, 0.003);
  text = parsePrometheusText(await a.registry.metrics());
  assert.equal(text.value('vigil_jobs', { kind: 'export', state: 'running' }), 2);
  assert.equal(text.value('vigil_job_duration_seconds_count', { kind: 'export', outcome: 'done' }), 1);
  assert.equal(text.value('vigil_http_request_duration_seconds_count', { route: '/api/cameras', status_code: '200' }), 1);
});

test('snapshot cache: one miss per camera fetch, hits for the requests it served, upstream latency', async (t) => {
  let fetches = 0;
  const camera = createServer((_req, res) => {
    fetches++;
    setTimeout(() => res.writeHead(200, { 'content-type': 'image/jpeg' }).end(JPEG), 50);
  });
  await new Promise<void>((resolve) => camera.listen(0, '127.0.0.1', resolve));
  t.after(() => camera.close());
  const port = (camera.address() as AddressInfo).port;
  const metrics = createVigilMetrics(sources());
  const cam = configCamera({ id: 'door', source: 'testsrc:', snapuri: `http://127.0.0.1:${port}/snap.jpg` });
  const service = new SnapshotService({ cameras: { get: (id) => (id === 'door' ? cam : undefined) }, log: testLogger().log, now: () => Date.now(), observer: metrics.snapshots });
  t.after(() => service.close());

  await Promise.all([0, 1, 2, 3, 4].map(() => service.snapshot('door')));
  await service.snapshot('door');
  assert.equal(fetches, 1);
  const text = parsePrometheusText(await metrics.registry.metrics());
  assert.equal(text.value('vigil_snapshot_cache_misses_total'), 1);
  assert.equal(text.value('vigil_snapshot_cache_hits_total'), 5);
  assert.equal(text.value('vigil_snapshot_upstream_seconds_count', { outcome: 'ok' }), 1);
  assert.ok((text.value('vigil_snapshot_upstream_seconds_sum', { outcome: 'ok' }) ?? 0) >= 0.04);
});

test('the TLS expiry series follows the served certificate, and exists only with tls', async () => {
  let notAfter = new Date('2027-03-01T12:00:00Z');
  const withTls = createVigilMetrics(sources({ tlsCertificateNotAfter: () => notAfter }));
  assert.equal(parsePrometheusText(await withTls.registry.metrics()).value('vigil_tls_certificate_expiry_timestamp_seconds'), Date.UTC(2027, 2, 1, 12) / 1000);
  notAfter = new Date('2027-06-01T12:00:00Z');
  assert.equal(parsePrometheusText(await withTls.registry.metrics()).value('vigil_tls_certificate_expiry_timestamp_seconds'), Date.UTC(2027, 5, 1, 12) / 1000, 'a renewed certificate moves it');
  assert.equal(parsePrometheusText(await createVigilMetrics(sources()).registry.metrics()).value('vigil_tls_certificate_expiry_timestamp_seconds'), undefined);
});
