// `play` following the recording across a camera reconnect (the RTSP camera gone for 2 s): one stream to `to`, the
// outage kept as a gap in it, decodable throughout.
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { probe } from '@vigil/testing/media-probe';
import { sha256 } from '../support/recorder-process.js';
import { fetchBytes, largestStep, videoPackets } from './playback-helpers.js';
import { cameraForTest, recorderForTest, waitRecording } from './recorder-setup.js';

const TOKEN = 'reconnect-viewer-1';

test('play across a camera reconnect: one stream, the gap kept as a gap, no end before to', { timeout: 120_000 }, async (t) => {
  const camera = await cameraForTest(t, { width: 320, height: 240, fps: 25, gop: 25, bitrateKbps: 300 });
  const rec = await recorderForTest(t, {
    // Longer than the outage and the reconnect together: the stream must outlast them.
    stall_seconds: 15,
    record: { segment_seconds: 60 },
    auth: { tokens: [{ name: 'wall', role: 'viewer', sha256: sha256(TOKEN) }] },
    cameras: [{ id: 'gate', source: camera.url }],
  });
  await waitRecording(rec, 'gate', { token: TOKEN });
  await new Promise((r) => setTimeout(r, 2000));

  const from = Math.floor(Date.now() / 1000) - 1;
  const to = from + 16;
  const answer = fetchBytes(`${rec.url}/api/archive/gate/play?from=${from}&to=${to}`, TOKEN, {}, 90_000);
  // While the window follows: the camera goes away for 2 s, then the recorder reconnects into a new file.
  await new Promise((r) => setTimeout(r, 3000));
  await camera.stop();
  await new Promise((r) => setTimeout(r, 2000));
  await camera.start();
  const r = await answer;
  assert.equal(r.status, 200);

  const path = join(rec.dir, 'reconnect.mp4');
  await writeFile(path, r.body);
  const p = await probe(path);
  assert.equal(p.errors, '', 'decodes cleanly');
  const packets = await videoPackets(path);
  const origin = Number(r.headers.get('vigil-start'));
  const lastWall = origin + Math.max(...packets.map((x) => x.pts));
  assert.ok(lastWall > to - 1.5, `the one stream reaches to, past the reconnect: its last picture is ${(to - lastWall).toFixed(2)} s before it`);
  const gap = largestStep(packets);
  assert.ok(gap.seconds >= 2, `the outage is a gap in the stream (${gap.seconds.toFixed(2)} s at ${gap.at.toFixed(2)} s), not squeezed out`);
  assert.ok(gap.at > 1 && gap.at < 8, `the gap is where the camera was away (${gap.at.toFixed(2)} s)`);
});
