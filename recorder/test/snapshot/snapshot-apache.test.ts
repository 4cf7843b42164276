// GET /api/cameras/{id}/snapshot against Apache httpd as the camera: Digest and Basic logins, cache, single flight, failures.
import type { LightMyRequestResponse } from 'fastify';
import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { SnapshotService } from '../../src/snapshot/snapshot-service.js';
import { configCamera } from '../support/fakes.js';
import { buildServiceApp, TOKENS, type TestApp } from '../support/test-app.js';
import { startApacheCamera, type ApacheCamera } from '@vigil/testing/apache-camera';
import { waitUntil } from '@vigil/testing/processes';
import { tempDir } from '@vigil/testing/temp-dir';

const USER = 'admin';
const PASSWORD = 'Sn4p-s3cret-pw';
const SOURCE = `rtsp://${USER}:${PASSWORD}@127.0.0.1:8554/stream`;
const NO_PTZ = { move: async () => undefined, stop: async () => undefined };

interface Fixture {
  api: TestApp;
  camera: ApacheCamera;
  clock: { now: number };
  get(id: string): Promise<LightMyRequestResponse>;
}

async function setUp(t: TestContext, cameras: (cam: ApacheCamera) => Array<Record<string, unknown>>, nonceLifetimeSeconds?: number): Promise<Fixture> {
  const dir = await tempDir(t);
  const camera = await startApacheCamera({ dir, user: USER, password: PASSWORD, ...(nonceLifetimeSeconds === undefined ? {} : { nonceLifetimeSeconds }) });
  t.after(() => camera.stop());
  const clock = { now: Date.parse('2026-03-01T12:00:00Z') };
  let service: SnapshotService | undefined;
  const api = await buildServiceApp(cameras(camera).map(configCamera), (registry, log) => {
    service = new SnapshotService({ cameras: registry, log, now: () => clock.now });
    return { snapshots: service, ptz: NO_PTZ };
  });
  t.after(async () => {
    await api.app.close();
    await service?.close();
  });
  const get = (id: string): Promise<LightMyRequestResponse> =>
    api.app.inject({ method: 'GET', url: `/api/cameras/${id}/snapshot`, headers: { authorization: `Bearer ${TOKENS.viewer}` } });
  return { api, camera, clock, get };
}

/**
 * Apache writes a log line after answering, and two of its workers may write theirs in either order: wait until `n`
 * lines are there (and a moment for extra ones), and return them sorted, so tests compare what was logged, not when.
 */
async function settledLog(camera: ApacheCamera, n: number): Promise<string[]> {
  await waitUntil(async () => (await camera.accessLog()).length >= n, 3000, `${n} lines in Apache's access log`);
  await new Promise((r) => setTimeout(r, 150));
  return (await camera.accessLog()).sort();
}

function assertClean(api: TestApp, ...texts: string[]): void {
  for (const text of [api.logText(), ...texts]) assert.ok(!text.includes(PASSWORD), `no camera password in: ${text.slice(0, 300)}`);
}

test('1000 concurrent requests share one Digest fetch; the still is cached for 15 s, and later fetches count nonces', async (t) => {
  const f = await setUp(t, (cam) => [{ id: 'front', source: SOURCE, snapuri: cam.url('/digest/still.jpg') }]);
  const answers = await Promise.all(Array.from({ length: 1000 }, () => f.get('front')));
  for (const res of answers) {
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['content-type'], 'image/jpeg');
    assert.equal(res.headers['cache-control'], 'private, max-age=15');
    assert.ok(res.rawPayload.equals(f.camera.jpeg), 'the camera bytes, unchanged');
  }
  // Exactly one fetch: Apache's challenge and the authorised request.
  assert.deepEqual(await settledLog(f.camera, 2), ['GET /digest/still.jpg 200', 'GET /digest/still.jpg 401']);

  f.clock.now += 6_000;
  const later = await f.get('front');
  assert.equal(later.statusCode, 200);
  assert.equal(later.headers['cache-control'], 'private, max-age=9');
  assert.equal((await settledLog(f.camera, 2)).length, 2, 'served from the cache');

  // Expired: one new request, answered up front with the same nonce (nc=00000002), so no new challenge.
  f.clock.now += 9_500;
  const refreshed = await f.get('front');
  assert.equal(refreshed.statusCode, 200);
  assert.equal(refreshed.headers['cache-control'], 'private, max-age=15');
  assert.deepEqual(await settledLog(f.camera, 3), ['GET /digest/still.jpg 200', 'GET /digest/still.jpg 200', 'GET /digest/still.jpg 401']);
  assertClean(f.api);
});

test('a stale nonce is answered again with the fresh one', async (t) => {
  const f = await setUp(t, (cam) => [{ id: 'front', source: SOURCE, snapuri: cam.url('/digest/still.jpg') }], 1);
  assert.equal((await f.get('front')).statusCode, 200);
  f.clock.now += 16_000;
  await new Promise((r) => setTimeout(r, 2_100)); // Apache's nonce lives 1 s
  const res = await f.get('front');
  assert.equal(res.statusCode, 200);
  assert.ok(res.rawPayload.equals(f.camera.jpeg));
  // Up-front answer refused as stale (401), then the fresh nonce's answer (200): two more of each than the first fetch.
  assert.deepEqual(await settledLog(f.camera, 4), ['GET /digest/still.jpg 200', 'GET /digest/still.jpg 200', 'GET /digest/still.jpg 401', 'GET /digest/still.jpg 401']);
  assertClean(f.api);
});

test('Basic with credentials in snapuri; wrong credentials, HTML, fake and oversized images are 502 and never cached', async (t) => {
  const f = await setUp(t, (cam) => [
    { id: 'basic', source: 'rtsp://127.0.0.1:8554/no-creds', snapuri: cam.url('/basic/still.jpg', { user: USER, password: PASSWORD }) },
    { id: 'wrong-digest', source: `rtsp://${USER}:not-${PASSWORD}@127.0.0.1:8554/s`, snapuri: cam.url('/digest/still.jpg') },
    { id: 'wrong-basic', source: SOURCE, snapuri: cam.url('/basic/still.jpg', { user: USER, password: 'nope-wrong' }) },
    { id: 'no-creds', source: 'rtsp://127.0.0.1:8554/s', snapuri: cam.url('/digest/still.jpg') },
    { id: 'html', source: SOURCE, snapuri: cam.url('/open/page.html') },
    { id: 'fake', source: SOURCE, snapuri: cam.url('/open/fake.jpg') },
    { id: 'missing', source: SOURCE, snapuri: cam.url('/open/missing.jpg') },
    { id: 'big', source: SOURCE, snapuri: cam.url(`/open/big.jpg?password=${PASSWORD}`) },
    { id: 'no-snapuri', source: SOURCE },
  ]);
  const basic = await f.get('basic');
  assert.equal(basic.statusCode, 200);
  assert.equal(basic.headers['content-type'], 'image/jpeg');
  assert.ok(basic.rawPayload.equals(f.camera.jpeg));

  const expectError = async (id: string, status: number, code: string, pattern: RegExp): Promise<void> => {
    const res = await f.get(id);
    assert.equal(res.statusCode, status, `${id}: ${res.body}`);
    const body = res.json<{ error: { code: string; message: string } }>();
    assert.equal(body.error.code, code, id);
    assert.match(body.error.message, pattern, id);
    assert.equal(res.headers['cache-control'], undefined);
    assertClean(f.api, res.body);
  };
  await expectError('wrong-digest', 502, 'camera_error', /refused the credentials.*401/);
  await expectError('wrong-basic', 502, 'camera_error', /refused the credentials.*401/);
  await expectError('no-creds', 502, 'camera_error', /neither snapuri nor source carries credentials/);
  await expectError('html', 502, 'camera_error', /text\/html.*not an image/);
  await expectError('fake', 502, 'camera_error', /image\/jpeg but the bytes are not/);
  await expectError('missing', 502, 'camera_error', /answered 404/);
  await expectError('big', 502, 'camera_error', /more than the 10485760|larger than the 10485760/);
  await expectError('no-snapuri', 404, 'no_snapshot_uri', /no snapshot URL/);
  await expectError('nobody', 404, 'camera_not_found', /not known/);

  // A failure is not cached: asking again asks the camera again. Apache logs a request after
  // answering it, so the count is awaited rather than read at once.
  const pageRequests = async (): Promise<number> => (await f.camera.accessLog()).filter((l) => l.startsWith('GET /open/page.html')).length;
  await waitUntil(async () => (await pageRequests()) === 1, 3000, 'the first HTML request in the access log');
  await expectError('html', 502, 'camera_error', /not an image/);
  await waitUntil(async () => (await pageRequests()) === 2, 3000, 'the second HTML request reaching the camera');
  assert.equal(await pageRequests(), 2);

  const anonymous = await f.api.app.inject({ method: 'GET', url: '/api/cameras/basic/snapshot' });
  assert.equal(anonymous.statusCode, 401);
});
