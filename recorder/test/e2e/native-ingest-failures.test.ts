// Native ingest when cameras misbehave: a stream cut in the middle of a picture, and a wrong password.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { probe } from '@vigil/testing/media-probe';
import { waitUntil } from '@vigil/testing/processes';
import { startRtspCamera } from '@vigil/testing/rtsp-camera';
import { startRtspCuttingProxy } from '@vigil/testing/rtsp-cutting-proxy';
import { tempDir } from '@vigil/testing/temp-dir';
import { startRecorderProcess } from '../support/recorder-process.js';
import { currentFilename, getJson, segmentFiles } from './helpers.js';

const run = promisify(execFile);

async function videoFrames(path: string): Promise<{ frames: number; seconds: number }> {
  const { stdout } = await run('ffprobe', ['-v', 'error', '-count_frames', '-select_streams', 'v:0', '-show_entries', 'stream=nb_read_frames:format=duration', '-of', 'json', path]);
  const info = JSON.parse(stdout) as { streams: Array<{ nb_read_frames: string }>; format: { duration: string } };
  return { frames: Number(info.streams[0]?.nb_read_frames), seconds: Number(info.format.duration) };
}

test('a camera that stops sending in the middle of a picture: the open file closes whole after stall_seconds, and recording resumes on reconnect', { timeout: 120_000 }, async (t) => {
  const dir = await tempDir(t);
  const camera = await startRtspCamera({ width: 640, height: 360, fps: 25, gop: 25 });
  t.after(() => camera.stop());
  const proxy = await startRtspCuttingProxy({ targetPort: camera.port });
  t.after(() => proxy.close());
  const rec = await startRecorderProcess({
    dir,
    config: { auth: { disabled: true }, stall_seconds: 2, record: { segment_seconds: 30 }, cameras: [{ id: 'cut', source: proxy.url('/cam') }] },
  });
  t.after(() => rec.stop());
  const current = () => currentFilename(rec.url, 'cut');
  await waitUntil(async () => (await current()) !== undefined, 20_000, 'recording through the proxy');
  await new Promise((r) => setTimeout(r, 2500));
  const open = await current();
  // Half of the first packet of a keyframe reaches the recorder, then nothing, on a socket that stays open.
  await proxy.freezeMidPacket();
  const frozenAt = Date.now();
  await waitUntil(async () => (await current()) !== open, 15_000, 'the open file is closed when the camera goes silent');
  const cameras = (await getJson(`${rec.url}/api/cameras`)).body as Array<{ id: string; state: string; ingest: string }>;
  assert.equal(cameras[0]?.ingest, 'native');
  await rec.waitForLog((l) => l.msg === 'camera went silent; restarting ingest', 10_000);
  assert.ok(Date.now() - frozenAt < 10_000, 'silence noticed within stall_seconds plus a little');

  // The closed file holds whole pictures only: it decodes cleanly, with as many pictures as its duration says.
  const closed = join(rec.recordPath, open as string);
  const p = await probe(closed);
  assert.equal(p.errors, '', 'no half picture was written');
  const { frames, seconds } = await videoFrames(closed);
  assert.ok(frames >= 50, `the file holds the seconds before the cut (${frames} pictures)`);
  assert.ok(Math.abs(frames - seconds * 25) <= 1, `${frames} pictures in ${seconds} s at 25 fps`);

  // The reconnect (a new connection, which the proxy forwards again) records again.
  await waitUntil(async () => (await current()) !== undefined, 40_000, 'recording again after the reconnect');
  assert.ok(proxy.stats.connections >= 2, 'a second session was opened');
  await waitUntil(async () => (await segmentFiles(rec.recordPath)).length >= 2, 10_000, 'a new file after the reconnect');
});

test('a wrong password: one clear error, the longest retry delay (no storm), and the password nowhere', { timeout: 60_000 }, async (t) => {
  const dir = await tempDir(t);
  const password = 'Wp2-right-pw';
  const wrong = 'Wp2-wrong-pw';
  const camera = await startRtspCamera({ auth: 'digest', user: 'admin', password, width: 320, height: 180 });
  t.after(() => camera.stop());
  const rec = await startRecorderProcess({
    dir,
    config: { auth: { disabled: true }, stall_seconds: 3, cameras: [{ id: 'door', source: camera.urlWithCredentials('admin', wrong) }] },
  });
  t.after(() => rec.stop());
  const refused = await rec.waitForLog((l) => /refused the credentials/.test(l.msg), 15_000);
  assert.equal(refused['camera'], 'door');
  const restart = await rec.waitForLog((l) => l.msg === 'ingest ended; restarting', 5_000);
  assert.equal(restart['retry_in_ms'], 30_000, 'a refused password waits the longest delay before trying again');
  assert.match(String(restart['err']), /refused the credentials \(401\)/);
  // Ten seconds later there has been no second attempt.
  await new Promise((r) => setTimeout(r, 10_000));
  assert.equal(rec.logs().filter((l) => l.msg === 'ingest started').length, 1, 'one attempt, not a retry storm');
  const cameras = (await getJson(`${rec.url}/api/cameras`)).body as Array<{ state: string }>;
  assert.notEqual(cameras[0]?.state, 'recording');
  await rec.stop();
  for (const secret of [password, wrong]) assert.equal(rec.output().includes(secret), false, 'no password in the logs');
});
