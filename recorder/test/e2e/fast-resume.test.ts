// After an outage, recording resumes within a moment of the camera answering again, on both ingest paths; a refused login still waits.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { waitUntil } from '@vigil/testing/processes';
import { startRtspCuttingProxy } from '@vigil/testing/rtsp-cutting-proxy';
import { currentFilename } from './helpers.js';
import { cameraForTest, onBothIngestPaths, recorderForTest, waitRecording } from './recorder-setup.js';

const OUTAGE_MS = 10_000;

test('a camera that is off for 10 s costs at most 12 s of recording, natively and through ffmpeg', { timeout: 120_000 }, async (t) => {
  // A keyframe every half second: the resumed file starts at one, so this bounds what the GOP adds to the hole.
  const camera = await cameraForTest(t, { width: 320, height: 180, fps: 24, gop: 12 });
  const proxy = await startRtspCuttingProxy({ targetPort: camera.port });
  t.after(() => proxy.close());
  const rec = await recorderForTest(t, {
    auth: { disabled: true },
    stall_seconds: 5,
    record: { segment_seconds: 60 },
    cameras: onBothIngestPaths('gate', proxy.url('/cam')),
  });
  const ids = ['gate-native', 'gate-ffmpeg'];
  const current = (id: string) => currentFilename(rec.url, id);
  // The first file is not what this test measures: under the suite's load a start may take a few failed runs.
  for (const id of ids) await waitRecording(rec, id, { timeoutMs: 60_000 });
  // Several failed attempts before the outage would have grown the backoff: start from a camera that runs well.
  await new Promise((r) => setTimeout(r, 2_000));
  const before = new Map<string, string | undefined>();
  for (const id of ids) before.set(id, await current(id));
  const offAt = Date.now();
  const outage = proxy.outage(OUTAGE_MS);
  const resumedAfter = await Promise.all(ids.map(async (id) => {
    await waitUntil(async () => {
      const now = await current(id);
      return now !== undefined && now !== before.get(id);
    }, 30_000, `${id}: a new file after the outage`, 100);
    return { id, ms: Date.now() - offAt };
  }));
  await outage;
  for (const { id, ms } of resumedAfter) {
    t.diagnostic(`${id}: no recording for ${ms} ms (${ms - OUTAGE_MS} ms after the camera came back)`);
    assert.ok(ms >= OUTAGE_MS, `${id}: nothing could be recorded during the outage (${ms} ms)`);
    assert.ok(ms <= OUTAGE_MS + 2_000, `${id}: recording resumed ${ms - OUTAGE_MS} ms after the camera came back`);
  }
  const downLines = rec.logs().filter((l) => l.msg === 'camera does not accept connections; reconnecting as soon as it does');
  assert.deepEqual(new Set(downLines.map((l) => l['camera'])), new Set(ids), 'both cameras were probed, not retried with a growing delay');
});
