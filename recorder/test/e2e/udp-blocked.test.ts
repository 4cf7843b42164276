// A camera whose UDP never arrives (a firewall): automatic transport gives up on UDP after a few seconds and records over TCP, on both paths.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { startHostileRtspCamera } from '@vigil/testing/hostile-rtsp-camera';
import { waitUntil } from '@vigil/testing/processes';
import { encodeLoopFile } from '@vigil/testing/rtsp-camera';
import { tempDir } from '@vigil/testing/temp-dir';
import { startRecorderProcess } from '../support/recorder-process.js';
import { getJson } from './helpers.js';

test('UDP remembered from before but blocked now: no RTP within a few seconds, TCP is tried, recorded and remembered instead', { timeout: 90_000 }, async (t) => {
  const dir = await tempDir(t);
  const loop = join(dir, 'loop.h264');
  await encodeLoopFile(loop, { width: 320, height: 180, fps: 25, gop: 25, bitrateKbps: 300, seconds: 4 });
  const camera = await startHostileRtspCamera({ mode: 'udp-silent', file: loop });
  t.after(() => camera.stop());
  const ids = ['blocked-native', 'blocked-ffmpeg'];
  // What a previous run kept: UDP worked with this camera (its address hashed, as the recorder keeps it).
  const work = join(dir, 'work', 'rtsp-transports');
  await mkdir(work, { recursive: true });
  const key = createHash('sha256').update(camera.url).digest('hex');
  for (const id of ids) await writeFile(join(work, id), JSON.stringify({ source: key, transport: 'udp' }));
  const rec = await startRecorderProcess({
    dir,
    config: {
      auth: { disabled: true },
      stall_seconds: 10,
      cameras: [
        { id: 'blocked-native', source: camera.url },
        { id: 'blocked-ffmpeg', source: camera.url, ingest: 'ffmpeg' },
      ],
    },
  });
  t.after(() => rec.stop());
  const started = Date.now();
  const took = await Promise.all(ids.map(async (id) => {
    await waitUntil(async () => (await getJson(`${rec.url}/api/archive/${id}/current`)).status === 200, 30_000, `${id} records`);
    return Date.now() - started;
  }));
  const list = (await getJson(`${rec.url}/api/cameras`)).body as Array<{ id: string; rtsp_transport: string; rtsp_transport_reason: string }>;
  for (const [i, id] of ids.entries()) {
    const entry = list.find((c) => c.id === id);
    assert.equal(entry?.rtsp_transport, 'tcp', `${id} records over TCP`);
    assert.match(entry?.rtsp_transport_reason ?? '', /refused UDP \(no RTP over UDP/, id);
    assert.ok((took[i] as number) < 15_000, `${id}: recording within ${took[i]} ms, not after stall_seconds and a backoff`);
    const kept = JSON.parse(await readFile(join(work, id), 'utf8')) as { transport: string };
    assert.equal(kept.transport, 'tcp', `${id}: TCP is what is remembered now`);
  }
});
