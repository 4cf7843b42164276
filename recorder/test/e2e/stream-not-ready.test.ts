// A server that answers DESCRIBE 404 until its stream is back (rtsp-server-perl without its publisher) is asked again fast: recording starts a moment after the stream does, on both ingest paths.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startPerlRtspServer } from '@vigil/testing/rtsp-perl-server';
import { currentFilename } from './helpers.js';
import { onBothIngestPaths, recorderForTest, waitRecording } from './recorder-setup.js';

/**
 * Longer than the failure backoff takes to reach its 30 s cap (waits of 1+2+4+8+16 s, plus six attempts of up to 2 s
 * each through ffmpeg under load): treated as a failing camera, the stream's return would wait up to 30 s more.
 */
const NO_STREAM_MS = 45_000;

test('a server without its stream for 45 s (DESCRIBE 404) is recorded within a few seconds of the stream\'s return, natively and through ffmpeg', { timeout: 150_000 }, async (t) => {
  // A keyframe every half second: the first file starts at one, so the GOP adds little to the wait.
  const server = await startPerlRtspServer({ publish: false, fps: 24, gop: 12 });
  t.after(() => server.stop());
  const ids = ['relay-native', 'relay-ffmpeg'];
  const rec = await recorderForTest(t, {
    auth: { disabled: true },
    stall_seconds: 5,
    record: { segment_seconds: 60 },
    cameras: onBothIngestPaths('relay', server.url),
  });
  await new Promise((r) => setTimeout(r, NO_STREAM_MS));
  for (const id of ids) assert.equal(await currentFilename(rec.url, id), undefined, `${id}: nothing to record yet`);

  await server.publish();
  const availableAt = Date.now();
  const waits = await Promise.all(ids.map(async (id) => {
    await waitRecording(rec, id, { timeoutMs: 60_000, stepMs: 100 });
    return { id, ms: Date.now() - availableAt };
  }));
  for (const { id, ms } of waits) {
    t.diagnostic(`${id}: recording ${ms} ms after the stream was back`);
    // 0.5 s between attempts, an attempt in flight (an ffmpeg start: 1-2 s under load), the set-up (TCP refused, then
    // UDP: through ffmpeg a second start) and the first keyframe; the failure backoff would have waited 25-30 s more.
    assert.ok(ms <= 10_000, `${id}: recording started ${ms} ms after the stream was back`);
  }

  // Said once per camera, not at every attempt (some 90 of them natively).
  const told = rec.logs().filter((l) => l.msg === 'the camera answers but has no stream yet (404 Not Found); asking again every 0.5 s');
  assert.deepEqual(told.map((l) => l['camera']).sort(), [...ids].sort());
  // The refused transport is the one named as refused.
  const refused = rec.logs().find((l) => l.msg === 'rtsp transport refused; trying the other one');
  assert.ok(refused !== undefined, 'the native session was refused TCP and tried UDP');
  assert.equal(refused['refused'], 'tcp');
  assert.equal(refused['next'], 'udp');
});
