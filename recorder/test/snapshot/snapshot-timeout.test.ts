// A camera that accepts the connection and never answers: 504 after 10 s, and the next request tries again.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SnapshotService } from '../../src/snapshot/snapshot-service.js';
import { configCamera } from '../support/fakes.js';
import { buildServiceApp, TOKENS } from '../support/test-app.js';
import { startSilentServer } from '@vigil/testing/silent-server';

test('a silent camera answers 504 camera_timeout within 10.5 s', { timeout: 30_000 }, async (t) => {
  const silent = await startSilentServer();
  t.after(() => silent.close());
  let service: SnapshotService | undefined;
  const api = await buildServiceApp([configCamera({ id: 'hung', source: 'rtsp://u:Hung-pw-99@127.0.0.1:8554/s', snapuri: `http://127.0.0.1:${silent.port}/snap.jpg` })], (registry, log) => {
    service = new SnapshotService({ cameras: registry, log, now: () => Date.now() });
    return { snapshots: service, ptz: { move: async () => undefined, stop: async () => undefined } };
  });
  t.after(async () => {
    await api.app.close();
    await service?.close();
  });
  const started = Date.now();
  const [a, b] = await Promise.all(
    [0, 1].map(() => api.app.inject({ method: 'GET', url: '/api/cameras/hung/snapshot', headers: { authorization: `Bearer ${TOKENS.viewer}` } })),
  );
  const elapsed = Date.now() - started;
  for (const res of [a, b]) {
    assert.equal(res?.statusCode, 504);
    assert.equal(res?.json<{ error: { code: string } }>().error.code, 'camera_timeout');
  }
  // Not before the 10 s limit; the upper bound leaves room for a loaded machine's timer delays.
  assert.ok(elapsed >= 9_900 && elapsed <= 12_500, `answered after ${elapsed} ms`);
  assert.equal(silent.accepted, 1, 'both requests waited for the one fetch');
  assert.ok(!api.logText().includes('Hung-pw-99'));
});
