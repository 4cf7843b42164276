// Export and time-lapse jobs end to end on real recordings: results, errors, downloads, limits, restarts, expiry.
import assert from 'node:assert/strict';
import { access, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { probe, topLevelBoxes } from '@vigil/testing/media-probe';
import { waitUntil } from '@vigil/testing/processes';
import { startRecorderProcess } from '../support/recorder-process.js';
import { startRtspCamera } from '@vigil/testing/rtsp-camera';
import { tempDir } from '@vigil/testing/temp-dir';
import { getJson, segmentFiles } from './helpers.js';
import { job, slowMediaTool, submit, waitForJob } from './jobs-helpers.js';

async function frameRate(path: string): Promise<string> {
  const { execFile } = await import('node:child_process');
  return new Promise((resolve, reject) =>
    execFile('ffprobe', ['-v', 'error', '-select_streams', 'v:0', '-show_entries', 'stream=avg_frame_rate', '-of', 'csv=p=0', path], (err, out) => (err ? reject(err) : resolve(out.trim()))),
  );
}

async function streamsOf(path: string): Promise<string[]> {
  const { execFile } = await import('node:child_process');
  return new Promise((resolve, reject) =>
    execFile('ffprobe', ['-v', 'error', '-show_entries', 'stream=codec_type', '-of', 'csv=p=0', path], (err, out) => (err ? reject(err) : resolve(out.trim().split('\n')))),
  );
}

test('export and time-lapse of real recordings, downloads with Range, and every submit error', { timeout: 150_000 }, async (t) => {
  const dir = await tempDir(t);
  const camera = await startRtspCamera({ width: 640, height: 360, fps: 25, gop: 25 });
  t.after(() => camera.stop());
  const rec = await startRecorderProcess({
    dir,
    config: { auth: { disabled: true }, record: { segment_seconds: 3 }, jobs: { result_ttl_seconds: 8 }, cameras: [{ id: 'jobcam', source: camera.url }] },
  });
  t.after(() => rec.stop());
  await waitUntil(async () => (await segmentFiles(rec.recordPath)).length >= 5, 40_000, 'about 12 s of recordings');
  const listing = (await getJson(`${rec.url}/api/archive/jobcam/segments`)).body as { archive: Array<{ timestamp: string; is_open: boolean }> };
  const first = Math.floor(Date.parse(listing.archive[0]?.timestamp ?? '') / 1000);
  const from = first + 1;
  const to = from + 9; // crosses three closed segments

  // Export: stream copy, trimmed to the window within one GOP (1 s), moov first.
  const ex = await submit(rec.url, `/api/archive/jobcam/export?from=${from}&to=${to}`);
  assert.equal(ex.status, 202);
  assert.equal(ex.body['status_url'], `/api/archive/jobs/${ex.body['job_id']}`);
  assert.equal(ex.body['download_url'], `/api/archive/jobs/${ex.body['job_id']}/download`);
  const exDone = await waitForJob(rec.url, ex.body['job_id'] as string, ['done', 'failed']);
  assert.equal(exDone.state, 'done', exDone.message);
  assert.equal(exDone.kind, 'export');
  assert.equal(exDone.progress, 1);
  assert.ok((exDone.size_bytes ?? 0) > 10_000);
  const exportFile = join(rec.workDir, 'jobs', `${exDone.job_id}.mp4`);
  const exProbe = await probe(exportFile);
  assert.equal(exProbe.errors, '');
  assert.equal(exProbe.codec, 'h264');
  assert.ok(Math.abs(exProbe.playSeconds - 9) <= 1.05, `export lasts ${exProbe.playSeconds}s for a 9 s window`);
  const boxes = await topLevelBoxes(exportFile);
  assert.ok(boxes.indexOf('moov') < boxes.indexOf('mdat'), `+faststart puts moov first (${boxes.join(',')})`);

  // Download: inline by default, attachment on request, Range answered 206, nonsense range 416.
  const whole = await fetch(`${rec.url}${ex.body['download_url'] as string}`);
  assert.equal(whole.status, 200);
  assert.equal(whole.headers.get('content-type'), 'video/mp4');
  assert.match(whole.headers.get('content-disposition') ?? '', /^inline; filename="jobcam_\d{8}T\d{6}Z-\d{8}T\d{6}Z\.mp4"$/);
  assert.equal((await whole.arrayBuffer()).byteLength, exDone.size_bytes);
  const attach = await fetch(`${rec.url}${ex.body['download_url'] as string}?download=1`);
  assert.match(attach.headers.get('content-disposition') ?? '', /^attachment; filename=/);
  await attach.arrayBuffer();
  const part = await fetch(`${rec.url}${ex.body['download_url'] as string}`, { headers: { range: 'bytes=100-199' } });
  assert.equal(part.status, 206);
  assert.equal(part.headers.get('content-range'), `bytes 100-199/${exDone.size_bytes}`);
  assert.equal((await part.arrayBuffer()).byteLength, 100);
  const bad = await fetch(`${rec.url}${ex.body['download_url'] as string}`, { headers: { range: `bytes=${(exDone.size_bytes ?? 0) + 10}-` } });
  assert.equal(bad.status, 416);
  await bad.arrayBuffer();

  // Time-lapse at speed 3 (full decode) and at speed 30 (keyframes alone: GOP 1 s × 30 fps).
  for (const speed of [3, 30]) {
    const tl = await submit(rec.url, `/api/archive/jobcam/timelapse?from=${from}&to=${to}&speed=${speed}`);
    assert.equal(tl.status, 202);
    const done = await waitForJob(rec.url, tl.body['job_id'] as string, ['done', 'failed']);
    assert.equal(done.state, 'done', done.message);
    assert.equal(done.kind, 'timelapse');
    assert.equal(done.speed, speed);
    const file = join(rec.workDir, 'jobs', `${done.job_id}.mp4`);
    const p = await probe(file);
    assert.equal(p.errors, '');
    assert.equal(p.codec, 'h264');
    assert.ok(p.width <= 1280 && p.width === 640);
    assert.equal(await frameRate(file), '30/1');
    assert.deepEqual(await streamsOf(file), ['video'], 'no audio');
    assert.ok(Math.abs(p.playSeconds - 9 / speed) <= 1.05 / speed + 0.07, `speed ${speed}: ${p.playSeconds}s for 9 s`);
  }

  // Submit errors.
  const err = async (path: string, status: number, code: string): Promise<void> => {
    const r = await submit(rec.url, path);
    assert.equal(r.status, status, path);
    assert.equal((r.body['error'] as { code: string }).code, code, path);
  };
  await err(`/api/archive/jobcam/export?to=${to}`, 400, 'invalid_parameter');
  await err(`/api/archive/jobcam/export?from=abc&to=${to}`, 400, 'invalid_parameter');
  await err(`/api/archive/jobcam/export?from=${to}&to=${to}`, 400, 'invalid_window');
  await err(`/api/archive/jobcam/export?from=${from}&to=${from + 4 * 3600 + 1}`, 413, 'window_too_long');
  await err(`/api/archive/jobcam/timelapse?from=${from}&to=${to}&speed=1`, 400, 'invalid_speed');
  await err(`/api/archive/jobcam/timelapse?from=${from}&to=${to}&speed=121`, 400, 'invalid_speed');
  await err(`/api/archive/jobcam/timelapse?from=${from}&to=${to}&speed=fast`, 400, 'invalid_speed');
  await err(`/api/archive/jobcam/timelapse?from=${from}&to=${to}`, 400, 'invalid_speed');
  const unknown = await getJson(`${rec.url}/api/archive/jobs/0123456789abcdef`);
  assert.equal(unknown.status, 404);
  assert.equal((unknown.body as { error: { code: string } }).error.code, 'job_not_found');

  // A window without recordings fails with no_recordings; its download says so.
  const empty = await submit(rec.url, `/api/archive/jobcam/export?from=${from - 86_400}&to=${from - 86_000}`);
  const failed = await waitForJob(rec.url, empty.body['job_id'] as string, ['done', 'failed']);
  assert.equal(failed.state, 'failed');
  assert.equal(failed.reason, 'no_recordings');
  assert.equal((await fetch(`${rec.url}/api/archive/jobs/${failed.job_id}/download`)).status, 409);

  // Expiry: 8 s after completion the result is gone and the download answers 410.
  await waitUntil(async () => (await fetch(`${rec.url}${ex.body['download_url'] as string}`, { method: 'GET' }).then(async (r) => (await r.arrayBuffer(), r.status))) === 410, 20_000, 'the result expires');
  await assert.rejects(access(exportFile), 'the expired result is deleted from disk');
  assert.equal((await job(rec.url, exDone.job_id)).state, 'done');
});

test('queue: 6 exports run 4 at once, 2 wait; a restart resumes pending and running jobs and keeps done results', { timeout: 120_000 }, async (t) => {
  const dir = await tempDir(t);
  const camera = await startRtspCamera({ width: 320, height: 240, fps: 25, gop: 25 });
  t.after(() => camera.stop());
  const tool = await slowMediaTool(dir, 3);
  const config = { auth: { disabled: true }, record: { segment_seconds: 2 }, media_tool: tool, cameras: [{ id: 'qcam', source: camera.url }] };
  const rec = await startRecorderProcess({ dir, config });
  t.after(() => rec.stop());
  await waitUntil(async () => (await segmentFiles(rec.recordPath)).length >= 3, 30_000, 'recordings');
  const now = Math.floor(Date.now() / 1000);
  const early = await submit(rec.url, `/api/archive/qcam/export?from=${now - 30}&to=${now}`);
  const earlyDone = await waitForJob(rec.url, early.body['job_id'] as string, ['done', 'failed']);
  assert.equal(earlyDone.state, 'done', earlyDone.message);
  const ids: string[] = [];
  for (let i = 0; i < 6; i++) ids.push((await submit(rec.url, `/api/archive/qcam/export?from=${now - 30}&to=${now}`)).body['job_id'] as string);
  await new Promise((r) => setTimeout(r, 500));
  const states = await Promise.all(ids.map(async (id) => (await job(rec.url, id)).state));
  assert.deepEqual(states, ['running', 'running', 'running', 'running', 'pending', 'pending'], 'submit order is kept');

  // Stop the recorder with 4 running and 2 pending, start it again: all six finish.
  await rec.stop();
  const again = await startRecorderProcess({ dir, config, port: Number(new URL(rec.url).port) });
  t.after(() => again.stop());
  await again.waitForLog((l) => l.msg === 'resuming archive jobs left unfinished by the previous run');
  for (const id of ids) {
    const done = await waitForJob(again.url, id, ['done', 'failed'], 60_000);
    assert.equal(done.state, 'done', done.message);
  }
  const kept = await fetch(`${again.url}/api/archive/jobs/${earlyDone.job_id}/download`);
  assert.equal(kept.status, 200, 'a result finished before the restart stays downloadable');
  await kept.arrayBuffer();
});

test('503 when the media tool is missing; disk_full when free space is below the reserve', { timeout: 60_000 }, async (t) => {
  const dir = await tempDir(t);
  const rec = await startRecorderProcess({ dir, config: { auth: { disabled: true }, media_tool: join(dir, 'no-such-ffmpeg'), cameras: [] } });
  t.after(() => rec.stop());
  const r = await submit(rec.url, '/api/archive/any/export?from=1000&to=2000');
  assert.equal(r.status, 503);
  assert.equal((r.body['error'] as { code: string }).code, 'media_tool_missing');
  await rec.stop();

  const dir2 = await tempDir(t);
  const camera = await startRtspCamera({ width: 320, height: 240, fps: 25, gop: 25 });
  t.after(() => camera.stop());
  const full = await startRecorderProcess({ dir: dir2, config: { auth: { disabled: true }, record: { segment_seconds: 2 }, jobs: { min_free_bytes: 1e15 }, cameras: [{ id: 'dcam', source: camera.url }] } });
  t.after(() => full.stop());
  await waitUntil(async () => (await segmentFiles(full.recordPath)).length >= 2, 30_000, 'recordings');
  const now = Math.floor(Date.now() / 1000);
  const j = await submit(full.url, `/api/archive/dcam/export?from=${now - 20}&to=${now}`);
  const done = await waitForJob(full.url, j.body['job_id'] as string, ['done', 'failed']);
  assert.equal(done.state, 'failed');
  assert.equal(done.reason, 'disk_full', done.message);
  await writeFile(join(dir2, 'done.txt'), 'ok');
});
