// A camera that goes away and comes back five times: recording resumes each time, no process is leaked.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { probe } from '@vigil/testing/media-probe';
import { processesMatching, waitUntil } from '@vigil/testing/processes';
import { startRecorderProcess } from '../support/recorder-process.js';
import { startRtspCamera } from '@vigil/testing/rtsp-camera';
import { tempDir } from '@vigil/testing/temp-dir';
import { currentFilename, getJson, segmentFiles } from './helpers.js';

test('the RTSP server stopped and started 5 times: recording resumes every time', { timeout: 150_000 }, async (t) => {
  const dir = await tempDir(t);
  const camera = await startRtspCamera({ width: 320, height: 240, fps: 25, gop: 25 });
  t.after(() => camera.stop());
  const rec = await startRecorderProcess({
    dir,
    config: { auth: { disabled: true }, stall_seconds: 3, record: { segment_seconds: 30 }, cameras: [{ id: 'gate', source: camera.url }] },
  });
  t.after(() => rec.stop());
  const current = () => currentFilename(rec.url, 'gate');
  await waitUntil(async () => (await current()) !== undefined, 20_000, 'first recording');
  const seen = new Set<string>();
  for (let i = 0; i < 5; i++) {
    const before = await current();
    if (before !== undefined) seen.add(before);
    await camera.stop();
    await waitUntil(async () => (await current()) === undefined, 15_000, `flap ${i}: the open file closes`);
    const ffmpegs = await processesMatching(`127.0.0.1:${camera.port}`);
    assert.ok(ffmpegs.every((p) => !p.state.startsWith('Z')), 'no zombie ffmpeg');
    await camera.start();
    await waitUntil(async () => {
      const now = await current();
      return now !== undefined && !seen.has(now);
    }, 40_000, `flap ${i}: recording resumed into a new file`);
  }
  assert.ok((await processesMatching(`127.0.0.1:${camera.port}`)).length <= 1, 'one ffmpeg for the camera at most');
  await rec.stop();
  assert.deepEqual(await processesMatching(`127.0.0.1:${camera.port}`), [], 'nothing left after stop');
  const files = await segmentFiles(rec.recordPath);
  assert.ok(files.length >= 6, `one file per connection (${files.length})`);
  for (const f of files) assert.equal((await probe(join(rec.recordPath, f))).errors, '', `${f} plays`);
});

test('a silent camera closes its file after stall_seconds and resumes when it talks again', { timeout: 90_000 }, async (t) => {
  const dir = await tempDir(t);
  const camera = await startRtspCamera({ width: 320, height: 240, fps: 25, gop: 25 });
  t.after(() => camera.stop());
  const rec = await startRecorderProcess({
    dir,
    config: { auth: { disabled: true }, stall_seconds: 3, record: { segment_seconds: 60 }, cameras: [{ id: 'dock', source: camera.url }] },
  });
  t.after(() => rec.stop());
  await waitUntil(async () => (await getJson(`${rec.url}/api/archive/dock/current`)).status === 200, 20_000, 'recording');
  // Freeze the camera process: the TCP connection stays open but no data flows.
  process.kill(camera.pid as number, 'SIGSTOP');
  const frozenAt = Date.now();
  try {
    await waitUntil(async () => (await getJson(`${rec.url}/api/archive/dock/current`)).status === 404, 10_000, 'the silent camera has no open file');
    const waited = Date.now() - frozenAt;
    assert.ok(waited >= 2500, `closed only after stall_seconds (${waited} ms)`);
    await rec.waitForLog((l) => l.msg === 'camera went silent; restarting ingest');
    const files = await segmentFiles(rec.recordPath);
    assert.equal(files.length, 1);
    assert.equal((await probe(join(rec.recordPath, files[0] as string))).errors, '');
  } finally {
    process.kill(camera.pid as number, 'SIGCONT');
  }
  await waitUntil(async () => (await getJson(`${rec.url}/api/archive/dock/current`)).status === 200, 40_000, 'recording after the camera came back');
});
