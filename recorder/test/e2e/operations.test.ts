// The operations surface of a real recorder: readiness with its checks, the metrics record, Prometheus series moving while a camera records.
import assert from 'node:assert/strict';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { readVersion } from '../../src/version.js';
import { waitUntil } from '@vigil/testing/processes';
import { inDays, licenseSigner } from '../support/license-signer.js';
import { parsePrometheusText, type Exposition } from '@vigil/testing/prometheus-text';
import { sha256, startRecorderProcess, type RecorderProcess } from '../support/recorder-process.js';
import { tempDir } from '@vigil/testing/temp-dir';
import { getJson } from './helpers.js';

const VIEWER = 'ops-viewer-token';
const ISO_WITH_OFFSET = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d$/;

async function metricsUrl(rec: RecorderProcess): Promise<string> {
  const line = await rec.waitForLog((l) => typeof l['metrics_url'] === 'string');
  return String(line['metrics_url']);
}

async function scrape(url: string): Promise<Exposition> {
  const res = await fetch(url, { signal: AbortSignal.timeout(5000) });
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
  return parsePrometheusText(await res.text());
}

/**
 * A readiness answer with this status (and, with a token, these failed checks). Every check has a 75 ms deadline, so
 * on a loaded machine a single answer can count one more check as failed; the steady answer is awaited (5 s).
 */
async function settledReady(rec: RecorderProcess, status: 200 | 503, token?: string, failed?: string[]): Promise<{ status: number; body: unknown }> {
  let last: { status: number; body: unknown } | undefined;
  await waitUntil(
    async () => {
      last = await getJson(`${rec.url}/api/health/ready`, token);
      return last.status === status && (failed === undefined || JSON.stringify((last.body as { failed?: unknown }).failed) === JSON.stringify(failed));
    },
    5_000,
    `readiness ${status}${failed === undefined ? '' : ` with failed ${failed.join(',')}`}`,
  ).catch(() => undefined);
  assert.ok(last !== undefined);
  return last;
}

async function assertNotReady(rec: RecorderProcess, failed: string[]): Promise<Record<string, unknown>> {
  const anon = await settledReady(rec, 503);
  assert.equal(anon.status, 503);
  assert.deepEqual(Object.keys(anon.body as object).sort(), ['status', 'timestamp', 'version']);
  assert.equal((anon.body as { status: string }).status, 'not_ready');
  const authorised = await settledReady(rec, 503, VIEWER, failed);
  assert.equal(authorised.status, 503);
  const body = authorised.body as Record<string, unknown>;
  assert.equal(body['status'], 'not_ready');
  assert.deepEqual(body['failed'], failed);
  return body['checks'] as Record<string, unknown>;
}

test('readiness, the metrics record and Prometheus series of a recording node; an expired or tampered license fails readiness only', { timeout: 60_000 }, async (t) => {
  const dir = await tempDir(t);
  const signer = licenseSigner();
  const licenseFile = join(dir, 'vigil.lic');
  const license = { customer: 'Ops Test', not_after: inDays(10), max_cameras: 4 };
  await signer.write(licenseFile, license);
  const rec = await startRecorderProcess({
    dir,
    config: {
      nodeName: 'ops-node',
      auth: { tokens: [{ name: 'wall', role: 'viewer', sha256: sha256(VIEWER) }] },
      license_file: licenseFile,
      license: { public_key: signer.publicKeyBase64 },
      record: { segment_seconds: 1 },
      cameras: [{ id: 'ops-cam', source: 'testsrc:size=320x240&rate=25&gop=25&bitrate=200k' }],
    },
  });
  t.after(() => rec.stop());
  const scrapeUrl = await metricsUrl(rec);
  assert.match(scrapeUrl, /^http:\/\/127\.0\.0\.1:\d+\/metrics$/);

  // Ready: the bare answer for anyone, the checks for a token.
  const anon = await settledReady(rec, 200);
  assert.equal(anon.status, 200);
  assert.deepEqual(Object.keys(anon.body as object).sort(), ['status', 'timestamp', 'version']);
  assert.equal((anon.body as { version: string }).version, readVersion());
  assert.match((anon.body as { timestamp: string }).timestamp, ISO_WITH_OFFSET);
  const full = await settledReady(rec, 200, VIEWER);
  assert.equal(full.status, 200);
  assert.deepEqual((full.body as Record<string, unknown>)['checks'], {
    storage: { configured: false, reachable: false },
    cluster_store: { configured: false },
    recordings_dir: { path: rec.recordPath, writable: true },
    license: { valid: true },
    tls: { configured: false },
  });
  assert.deepEqual((full.body as Record<string, unknown>)['failed'], []);

  // The node metrics record.
  assert.equal((await getJson(`${rec.url}/api/metrics`)).status, 401);
  const record = await getJson(`${rec.url}/api/metrics`, VIEWER);
  assert.equal(record.status, 200);
  const m = record.body as Record<string, unknown>;
  assert.deepEqual(Object.keys(m).sort(), ['cpu_load', 'mem_total_gb', 'mem_used_gb', 'node_name', 'online', 'storage_free_gb', 'storage_used_gb', 'timestamp']);
  assert.equal(m['online'], true);
  assert.equal(m['node_name'], 'ops-node');
  for (const k of ['cpu_load', 'mem_used_gb', 'mem_total_gb', 'storage_free_gb', 'storage_used_gb']) assert.ok(Number.isInteger(m[k]) && (m[k] as number) >= 0, `${k} is a non-negative integer`);
  assert.ok((m['mem_total_gb'] as number) >= (m['mem_used_gb'] as number));
  assert.match(String(m['timestamp']), ISO_WITH_OFFSET);

  // Prometheus: per-camera series move while the camera records.
  const cam = { camera: 'ops-cam' };
  await waitUntil(async () => ((await scrape(scrapeUrl)).value('vigil_camera_segments_closed_total', cam) ?? 0) >= 1, 20_000, 'a closed segment');
  await getJson(`${rec.url}/api/archive/ops-cam/current`, VIEWER);
  const first = await scrape(scrapeUrl);
  await new Promise((r) => setTimeout(r, 1500));
  const second = await scrape(scrapeUrl);
  for (const name of ['vigil_camera_ingest_bytes_total', 'vigil_camera_fragments_total', 'vigil_camera_segments_closed_total']) {
    assert.equal(second.types.get(name), 'counter', `${name} is a counter`);
    assert.ok((second.value(name, cam) ?? 0) > (first.value(name, cam) ?? 0), `${name} moves`);
  }
  assert.equal(second.value('vigil_camera_reconnects_total', cam), 0);
  assert.equal(second.value('vigil_camera_stalls_total', cam), 0);
  assert.equal(second.value('vigil_camera_live_viewers', cam), 0);
  assert.ok((second.value('vigil_camera_seconds_since_last_fragment', cam) ?? 99) < 2);
  assert.equal(second.value('vigil_camera_fragments_dropped_total', { ...cam, subscriber: 'recording' }), 0);
  assert.equal(second.value('vigil_camera_fragments_dropped_total', { ...cam, subscriber: 'live' }), 0);
  assert.equal(second.value('vigil_jobs', { kind: 'export', state: 'pending' }), 0);
  assert.equal(second.value('vigil_job_duration_seconds_count', { kind: 'timelapse', outcome: 'done' }), 0);
  assert.equal(second.value('vigil_snapshot_cache_hits_total'), 0);
  assert.equal(second.value('vigil_snapshot_cache_misses_total'), 0);
  assert.equal(second.types.get('vigil_snapshot_upstream_seconds'), 'histogram');
  assert.equal(second.value('vigil_retention_deletions_total', { reason: 'max_age' }), 0);
  assert.ok((second.value('vigil_record_path_free_bytes') ?? 0) > 0);
  assert.equal(second.value('vigil_outbox_depth'), undefined, 'no outbox without a database');
  assert.ok((second.value('process_cpu_seconds_total') ?? -1) >= 0, 'the default process metrics');
  // Request timing is by route pattern and status, never the raw URL.
  assert.ok((second.value('vigil_http_request_duration_seconds_count', { method: 'GET', route: '/api/metrics', status_code: '200' }) ?? 0) >= 1);
  assert.ok((second.value('vigil_http_request_duration_seconds_count', { route: '/api/archive/:camera_id/current' }) ?? 0) >= 1);
  assert.ok(second.samples.every((s) => !Object.values(s.labels).some((v) => v.includes('ops-cam/') || v.includes('testsrc'))), 'label values are ids and patterns only');

  // A tampered license fails readiness (and only readiness); so does an expired one.
  await signer.write(licenseFile, license, (doc) => {
    doc['max_cameras'] = 400;
  });
  assert.deepEqual((await assertNotReady(rec, ['license']))['license'], { valid: false });
  await rec.waitForLog((l) => l.level === 50 && l.msg.startsWith('license invalid') && l['state'] === 'bad_signature');
  await signer.write(licenseFile, { ...license, not_after: inDays(-1) });
  await assertNotReady(rec, ['license']);
  await rec.waitForLog((l) => l.level === 50 && l['state'] === 'expired');
  const framesBefore = (await scrape(scrapeUrl)).value('vigil_camera_fragments_total', cam) ?? 0;
  await waitUntil(async () => ((await scrape(scrapeUrl)).value('vigil_camera_fragments_total', cam) ?? 0) > framesBefore + 10, 5_000, 'recording goes on');
  await signer.write(licenseFile, license);
  assert.equal((await settledReady(rec, 200)).status, 200, 'a renewed license counts without a restart');
});

test('readiness fails on its own when the recordings directory cannot be written', { timeout: 30_000 }, async (t) => {
  const dir = await tempDir(t);
  const rec = await startRecorderProcess({ dir, config: { auth: { tokens: [{ name: 'wall', role: 'viewer', sha256: sha256(VIEWER) }] }, cameras: [] } });
  t.after(() => rec.stop());
  // Root ignores permission bits, so make it fail for real: the directory is gone and a file sits at its path
  // (what a lost mount with a stray file looks like). Every write under it fails with ENOTDIR.
  await rm(rec.recordPath, { recursive: true });
  await writeFile(rec.recordPath, 'not a directory');
  // The probe ran at start and writes again at most every 5 s, so the failure shows within one interval or two.
  await waitUntil(async () => (await getJson(`${rec.url}/api/health/ready`)).status === 503, 12_000, 'readiness to notice the directory');
  const checks = await assertNotReady(rec, ['recordings_dir']);
  assert.deepEqual(checks['recordings_dir'], { path: rec.recordPath, writable: false });
  assert.deepEqual(checks['license'], { valid: true }, 'no license file and license.required false: valid');
  await rec.waitForLog((l) => l.level === 50 && String(l['reason']).includes('ENOTDIR'));
});

test('a missing record_path (an unmounted disk): the metrics record answers 200 with storage 0, readiness names the directory', { timeout: 30_000 }, async (t) => {
  const dir = await tempDir(t);
  const rec = await startRecorderProcess({ dir, config: { auth: { tokens: [{ name: 'wall', role: 'viewer', sha256: sha256(VIEWER) }] }, cameras: [] } });
  t.after(() => rec.stop());
  await rm(rec.recordPath, { recursive: true });
  const record = await getJson(`${rec.url}/api/metrics`, VIEWER);
  assert.equal(record.status, 200, JSON.stringify(record.body));
  const m = record.body as Record<string, unknown>;
  assert.equal(m['online'], true);
  assert.equal(m['storage_free_gb'], 0);
  assert.equal(m['storage_used_gb'], 0);
  assert.ok(Number.isInteger(m['mem_total_gb']) && Number.isInteger(m['cpu_load']), 'the rest of the record is there');
  await waitUntil(async () => (await getJson(`${rec.url}/api/health/ready`)).status === 503, 12_000, 'readiness to notice the directory');
  const checks = await assertNotReady(rec, ['recordings_dir']);
  assert.deepEqual(checks['recordings_dir'], { path: rec.recordPath, writable: false });
});
