// record_path missing at start or vanishing while recording (an unmounted disk): never recreated, nothing written elsewhere, resumes when back.
import assert from 'node:assert/strict';
import { access, mkdir, readdir, rename, stat } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { waitUntil } from '@vigil/testing/processes';
import { tempDir } from '@vigil/testing/temp-dir';
import { startRecorderProcess, type RecorderProcess } from '../support/recorder-process.js';
import { getJson } from './helpers.js';

const CAMERA = { id: 'door', source: 'testsrc:size=320x240&rate=25&gop=25&bitrate=200k' };

interface Segment {
  filename: string;
  sequence: number;
  is_open: boolean;
}

const exists = (path: string): Promise<boolean> =>
  access(path).then(
    () => true,
    () => false,
  );

/** Every file under `dir` with its size: what was written, wherever it went. */
async function filesUnder(dir: string): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  const walk = async (d: string): Promise<void> => {
    for (const entry of await readdir(d, { withFileTypes: true }).catch(() => [])) {
      const full = join(d, entry.name);
      if (entry.isDirectory()) await walk(full);
      else out.set(relative(dir, full), (await stat(full).catch(() => undefined))?.size ?? -1);
    }
  };
  await walk(dir);
  return out;
}

async function closedSegments(rec: RecorderProcess): Promise<Segment[]> {
  const res = await getJson(`${rec.url}/api/archive/${CAMERA.id}/segments`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return (res.body as { archive: Segment[] }).archive.filter((s) => !s.is_open);
}

async function readiness(rec: RecorderProcess): Promise<{ status: number; failed: unknown }> {
  const res = await getJson(`${rec.url}/api/health/ready`);
  return { status: res.status, failed: (res.body as { failed?: unknown }).failed };
}

const recording = async (rec: RecorderProcess): Promise<boolean> => (await getJson(`${rec.url}/api/archive/${CAMERA.id}/current`)).status === 200;

test('record_path missing at start: the recorder runs, not ready, creates nothing; recording starts when the directory appears', { timeout: 90_000 }, async (t) => {
  const dir = await tempDir(t);
  const rec = await startRecorderProcess({ dir, createRecordPath: false, config: { auth: { disabled: true }, record: { segment_seconds: 1 }, cameras: [CAMERA] } });
  t.after(() => rec.stop());
  const line = await rec.waitForLog((l) => l.level === 50 && typeof l.msg === 'string' && l.msg.startsWith(`record_path ${rec.recordPath} is missing`));
  assert.equal(line['reason'], 'ENOENT');

  const metrics = await getJson(`${rec.url}/api/metrics`);
  assert.equal(metrics.status, 200, JSON.stringify(metrics.body));
  assert.equal((metrics.body as { storage_free_gb: number }).storage_free_gb, 0);
  await waitUntil(async () => JSON.stringify(await readiness(rec)) === JSON.stringify({ status: 503, failed: ['recordings_dir'] }), 10_000, 'readiness 503 naming recordings_dir');

  // The camera streams (live view works), but nothing is recorded and record_path is not created.
  await waitUntil(async () => ((await getJson(`${rec.url}/api/cameras`)).body as Array<{ state: string }>)[0]?.state === 'recording', 20_000, 'the camera streams');
  await rec.waitForLog((l) => l.msg === 'recording paused: record_path is missing');
  await new Promise((r) => setTimeout(r, 1500));
  assert.equal(await exists(rec.recordPath), false, 'record_path is never created by the recorder');
  assert.equal(await recording(rec), false);
  assert.deepEqual([...(await filesUnder(dir)).keys()].filter((f) => f.endsWith('.mp4')), [], 'no segment anywhere');

  // The disk is mounted (here: the directory is made): recording starts without a restart, readiness follows.
  await mkdir(rec.recordPath);
  await rec.waitForLog((l) => typeof l.msg === 'string' && l.msg === `record_path ${rec.recordPath} is back: recording resumes`);
  await waitUntil(async () => (await closedSegments(rec)).length >= 1, 30_000, 'a closed segment in the new directory');
  await waitUntil(async () => (await readiness(rec)).status === 200, 15_000, 'readiness back to 200');
});

test('record_path vanishing while recording: not recreated, nothing written elsewhere, readiness 503; back: recording resumes and nothing vanished', { timeout: 120_000 }, async (t) => {
  const dir = await tempDir(t);
  const rec = await startRecorderProcess({ dir, config: { auth: { disabled: true }, record: { segment_seconds: 1 }, archive: { rescan_minutes: 0.02 }, cameras: [CAMERA] } });
  t.after(() => rec.stop());
  await waitUntil(async () => (await closedSegments(rec)).length >= 3, 30_000, 'three closed segments');
  await waitUntil(async () => (await readiness(rec)).status === 200, 10_000, 'ready while recording');

  // Unmount, as far as the recorder can tell: the directory and everything in it disappear from record_path.
  const away = join(dir, 'unmounted-disk');
  await rename(rec.recordPath, away);
  await rec.waitForLog((l) => l.level === 50 && typeof l.msg === 'string' && l.msg.startsWith(`record_path ${rec.recordPath} is missing`));
  await waitUntil(async () => !(await recording(rec)), 10_000, 'the open segment closed');
  await waitUntil(async () => JSON.stringify((await readiness(rec)).failed) === '["recordings_dir"]', 15_000, 'readiness to fail on recordings_dir');
  // A rescan runs meanwhile and forgets nothing: the segments are out of reach, not deleted.
  await rec.waitForLog((l) => l.msg.startsWith('archive rescan skipped: record_path is missing'));
  const before = await closedSegments(rec);
  assert.ok(before.length >= 3, `the listing still has the segments recorded before (${before.length})`);
  const removals = rec.logs().filter((l) => l.msg === 'archive rescan found files changed outside the recorder' && l['removed'] !== 0);
  assert.deepEqual(removals, [], 'no rescan took the segments for removed');

  // Nothing is written while record_path is gone: not recreated, no new bytes on the "unmounted" disk either.
  const written = await filesUnder(away);
  await new Promise((r) => setTimeout(r, 2000));
  assert.equal(await exists(rec.recordPath), false, 'record_path is not recreated');
  assert.deepEqual(await filesUnder(away), written, 'no file grows or appears while record_path is missing');
  assert.equal(await recording(rec), false);

  // The disk comes back: recording resumes into it without a restart, readiness returns to 200.
  await rename(away, rec.recordPath);
  await rec.waitForLog((l) => l.msg === `record_path ${rec.recordPath} is back: recording resumes`);
  const lastBefore = Math.max(...[...written.keys()].map((f) => Number(/_(\d+)\.mp4$/.exec(f)?.[1] ?? 0)));
  await waitUntil(async () => (await closedSegments(rec)).some((s) => s.sequence > lastBefore), 30_000, 'a new segment after the disk came back');
  await waitUntil(async () => (await readiness(rec)).status === 200, 15_000, 'readiness back to 200');
  // Every segment file on the disk is listed: those from before, the one closed by the outage, the new ones.
  const listed = new Set((await closedSegments(rec)).map((s) => s.filename));
  const segmentsOnDisk = [...written.keys()].filter((f) => f.endsWith('.mp4'));
  assert.ok(segmentsOnDisk.length >= 4, `the disk held the segments (${segmentsOnDisk.length})`);
  for (const f of segmentsOnDisk) assert.ok(listed.has(f), `${f} is listed after the disk came back`);
});
