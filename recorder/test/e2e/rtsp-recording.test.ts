// Records a real RTSP camera (GStreamer, Digest auth) end to end: playable segments, API, auth, clean logs.
import assert from 'node:assert/strict';
import { stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { test } from 'node:test';
import { probe } from '@vigil/testing/media-probe';
import { processesMatching, waitUntil } from '@vigil/testing/processes';
import { parseSegmentFileName } from '../../src/recording/segment-name.js';
import { sha256, startRecorderProcess } from '../support/recorder-process.js';
import { startRtspCamera } from '@vigil/testing/rtsp-camera';
import { tempDir } from '@vigil/testing/temp-dir';
import { getJson, postJson, segmentFiles, sequenceOf } from './helpers.js';

const PASSWORD = 'Zq9-secret-pw';
const TOKENS = { viewer: 'viewer-token-1', operator: 'operator-token-1' };

test('an RTSP camera with Digest auth is recorded into playable segments; API, auth and logs behave', { timeout: 120_000 }, async (t) => {
  const dir = await tempDir(t);
  const camera = await startRtspCamera({ auth: 'digest', user: 'admin', password: PASSWORD, width: 640, height: 360, fps: 25, gop: 25 });
  t.after(() => camera.stop());
  const rec = await startRecorderProcess({
    dir,
    config: {
      nodeName: 'node-a',
      stall_seconds: 4,
      record: { segment_seconds: 2 },
      auth: {
        tokens: [
          { name: 'wall', role: 'viewer', sha256: sha256(TOKENS.viewer) },
          { name: 'ops', role: 'operator', sha256: sha256(TOKENS.operator) },
        ],
      },
      cameras: [{ id: 'lobby', source: camera.urlWithCredentials() }],
    },
  });
  t.after(() => rec.stop());

  // Four closed segments, ~2 s each (GOP 1 s, so a segment rolls at the first keyframe after 2 s).
  await waitUntil(async () => (await segmentFiles(rec.recordPath)).length >= 5, 40_000, 'five segment files');
  const current = await getJson(`${rec.url}/api/archive/lobby/current`, TOKENS.viewer);
  assert.equal(current.status, 200);
  const cur = current.body as { camera_id: string; filename: string; start: string; size: number };
  assert.equal(cur.camera_id, 'lobby');
  assert.match(cur.filename, /^lobby\/\d{4}-\d{2}-\d{2}\/lobby_\d{8}T\d{6}Z_\d+\.mp4$/);
  assert.match(cur.start, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}[+-]\d{2}:\d{2}$/);
  assert.ok(cur.size > 0);
  assert.ok(!('duration' in cur));

  const files = await segmentFiles(rec.recordPath);
  const closed = files.filter((f) => f !== cur.filename);
  assert.ok(closed.length >= 4);
  const seqs = files.map(sequenceOf).sort((a, b) => a - b);
  assert.deepEqual(seqs, seqs.map((_, i) => (seqs[0] as number) + i), 'sequences are consecutive');
  for (const f of closed.slice(1)) {
    // the first segment may start mid-stream; every later one is a full 2 s
    const p = await probe(join(rec.recordPath, f));
    assert.equal(p.errors, '', `${f} decodes cleanly`);
    assert.equal(p.codec, 'h264');
    assert.equal(p.width, 640);
    assert.ok(Math.abs(p.playSeconds - 2) <= 0.5, `${f} lasts ${p.playSeconds}s, close to segment_seconds`);
    assert.ok(p.startTime < 0.2, `${f} starts at time zero, not at the stream's clock (${p.startTime}s)`);
    // A closed file's mtime is its end: the start its name carries plus the media, not the moment it was closed.
    const named = parseSegmentFileName(basename(f))?.start.getTime() ?? NaN;
    const mtimeMs = (await stat(join(rec.recordPath, f))).mtimeMs;
    assert.ok(Math.abs(mtimeMs - (named + p.duration * 1000)) < 60, `${f}: mtime ${new Date(mtimeMs).toISOString()} is the named start + ${p.duration} s`);
  }

  // Authentication: none → 401 with the challenge header, viewer cannot stop, operator can.
  const anon = await getJson(`${rec.url}/api/archive/lobby/current`);
  assert.equal(anon.status, 401);
  assert.equal(anon.headers.get('www-authenticate')?.startsWith('Bearer'), true);
  assert.equal((anon.body as { error: { code: string } }).error.code, 'unauthorized');
  assert.equal((await getJson(`${rec.url}/api/archive/lobby/current`, 'wrong-token')).status, 401);
  assert.equal((await getJson(`${rec.url}/api/archive/lobby/current?access_token=${TOKENS.viewer}`)).status, 401, 'a token is never read from the URL');
  assert.equal((await getJson(`${rec.url}/api/health/live`)).status, 200, 'health needs no token');
  const viewerStop = await postJson(`${rec.url}/cameras/stop`, { id: 'lobby' }, TOKENS.viewer);
  assert.equal(viewerStop.status, 403);
  assert.equal((viewerStop.body as { error: { code: string } }).error.code, 'forbidden');

  // Start/stop: validation, unknown camera, counts.
  assert.equal((await postJson(`${rec.url}/cameras/stop`, {}, TOKENS.operator)).status, 400);
  assert.equal((await postJson(`${rec.url}/cameras/stop`, { id: 'lobby', extra: 1 }, TOKENS.operator)).status, 400);
  assert.equal((await postJson(`${rec.url}/cameras/stop`, '{not json', TOKENS.operator)).status, 400);
  const unknown = await postJson(`${rec.url}/cameras/stop`, { id: 'nope' }, TOKENS.operator);
  assert.equal(unknown.status, 404);
  assert.equal((unknown.body as { error: { code: string } }).error.code, 'camera_not_found');
  assert.deepEqual((await postJson(`${rec.url}/cameras/stop`, { id: 'lobby' }, TOKENS.operator)).body, { status: 'ok', stopped: 1 });
  assert.deepEqual((await postJson(`${rec.url}/cameras/stop`, { id: '*' }, TOKENS.operator)).body, { status: 'ok', stopped: 0 });
  assert.equal((await getJson(`${rec.url}/api/archive/lobby/current`, TOKENS.viewer)).status, 404, 'a stopped camera has no current file');
  assert.deepEqual(await processesMatching(`127.0.0.1:${camera.port}`), [], 'stop leaves no ffmpeg behind');
  const lastBeforeStop = (await segmentFiles(rec.recordPath)).at(-1) as string;
  assert.equal((await probe(join(rec.recordPath, lastBeforeStop))).errors, '', 'the file closed by stop plays');
  assert.deepEqual((await postJson(`${rec.url}/cameras/start`, { id: '*' }, TOKENS.operator)).body, { status: 'ok', started: 1 });
  await waitUntil(async () => (await getJson(`${rec.url}/api/archive/lobby/current`, TOKENS.viewer)).status === 200, 15_000, 'recording again');

  await rec.stop();
  // Nothing the recorder printed carries the camera password.
  assert.ok(rec.output().length > 1000);
  assert.equal(rec.output().includes(PASSWORD), false, 'the camera password never appears in the logs');
  assert.match(rec.output(), /rtsp:\/\/\*\*\*@127\.0\.0\.1/);
});

test('without credentials the camera refuses the recorder, which keeps retrying without leaking anything', { timeout: 60_000 }, async (t) => {
  const dir = await tempDir(t);
  const camera = await startRtspCamera({ auth: 'digest', user: 'admin', password: PASSWORD });
  t.after(() => camera.stop());
  const rec = await startRecorderProcess({
    dir,
    config: { auth: { disabled: true }, stall_seconds: 3, cameras: [{ id: 'door', source: camera.urlWithCredentials('admin', `${PASSWORD}x`) }] },
  });
  t.after(() => rec.stop());
  await rec.waitForLog((l) => l.msg === 'ingest ended; restarting', 20_000);
  assert.equal((await getJson(`${rec.url}/api/archive/door/current`)).status, 404);
  await rec.stop();
  assert.equal(rec.output().includes(PASSWORD), false);
});
