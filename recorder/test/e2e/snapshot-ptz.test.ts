// The vigil-recorder process wires snapshots and PTZ: an Apache Digest camera and an ONVIF fixture, through the real API, with clean logs.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startApacheCamera } from '@vigil/testing/apache-camera';
import { startOnvifCamera } from '@vigil/testing/onvif-camera';
import { sha256, startRecorderProcess } from '../support/recorder-process.js';
import { tempDir } from '@vigil/testing/temp-dir';
import { postJson } from './helpers.js';

const PASSWORD = 'E2e-cam-s3cret';
const TOKENS = { viewer: 'e2e-viewer-6', operator: 'e2e-operator-6' };

test('the recorder serves a camera still and drives PTZ, and never logs the camera password', { timeout: 60_000 }, async (t) => {
  const dir = await tempDir(t);
  const apache = await startApacheCamera({ dir, user: 'admin', password: PASSWORD });
  t.after(() => apache.stop());
  const onvif = await startOnvifCamera({ user: 'admin', password: PASSWORD });
  t.after(() => onvif.close());
  const rec = await startRecorderProcess({
    dir,
    config: {
      auth: {
        tokens: [
          { name: 'wall', role: 'viewer', sha256: sha256(TOKENS.viewer) },
          { name: 'ops', role: 'operator', sha256: sha256(TOKENS.operator) },
        ],
      },
      // Nothing listens on port 1: the stream never starts, which these endpoints do not need.
      cameras: [{ id: 'dome', source: `rtsp://admin:${PASSWORD}@127.0.0.1:1/live`, ptz: true, snapuri: apache.url('/digest/still.jpg'), onvif: onvif.url }],
    },
  });
  t.after(() => rec.stop());

  const still = await fetch(`${rec.url}/api/cameras/dome/snapshot`, { headers: { authorization: `Bearer ${TOKENS.viewer}` } });
  assert.equal(still.status, 200);
  assert.equal(still.headers.get('content-type'), 'image/jpeg');
  assert.match(still.headers.get('cache-control') ?? '', /^private, max-age=1[45]$/);
  assert.ok(Buffer.from(await still.arrayBuffer()).equals(apache.jpeg));

  const move = await postJson(`${rec.url}/api/ptz/move`, { camera_id: 'dome', pan: 0.4, tilt: 0.2, zoom: 0, speed: 0.5 }, TOKENS.operator);
  assert.deepEqual(move, { status: 200, body: { status: 'ok', message: 'ptz move completed' } });
  assert.deepEqual((await postJson(`${rec.url}/api/ptz/stop`, { camera_id: 'dome' }, TOKENS.operator)).body, { status: 'ok', message: 'ptz stop completed' });
  assert.deepEqual(
    onvif.moves.map((m) => [m.x, m.y, m.zoom]),
    [[0.2, 0.1, 0]],
  );
  assert.equal(onvif.stops.length, 1);

  await rec.stop();
  assert.ok(!rec.output().includes(PASSWORD), 'the camera password appears nowhere in the output');
});
