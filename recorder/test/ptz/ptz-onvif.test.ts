// POST /api/ptz/move and /api/ptz/stop through the onvif client against an ONVIF SOAP camera that checks WS-Security.
import type { LightMyRequestResponse } from 'fastify';
import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { PtzService } from '../../src/ptz/ptz-service.js';
import { configCamera } from '../support/fakes.js';
import { buildServiceApp, TOKENS, type TestApp } from '../support/test-app.js';
import { PTZ_PROFILE, startOnvifCamera, type OnvifCamera } from '@vigil/testing/onvif-camera';

const USER = 'onvif-admin';
const PASSWORD = 'Ptz-s3cret-pw';
const source = (password = PASSWORD): string => `rtsp://${USER}:${password}@127.0.0.1:8554/stream`;
const NO_SNAPSHOTS = {
  snapshot: async (): Promise<never> => {
    throw new Error('not in these tests');
  },
};

async function setUp(t: TestContext, cameras: Array<Record<string, unknown>>): Promise<TestApp> {
  const api = await buildServiceApp(cameras.map(configCamera), (registry, log) => ({
    snapshots: NO_SNAPSHOTS,
    ptz: new PtzService({ cameras: registry, log, requestTimeoutMs: 2_000 }),
  }));
  t.after(() => api.app.close());
  return api;
}

async function fixture(t: TestContext, opts: Partial<Parameters<typeof startOnvifCamera>[0]> = {}): Promise<OnvifCamera> {
  const cam = await startOnvifCamera({ user: USER, password: PASSWORD, ...opts });
  t.after(() => cam.close());
  return cam;
}

function post(api: TestApp, path: string, body: unknown, token: string = TOKENS.operator): Promise<LightMyRequestResponse> {
  return api.app.inject({ method: 'POST', url: path, payload: body as Record<string, unknown>, headers: { authorization: `Bearer ${token}` } });
}

function errorOf(res: LightMyRequestResponse): { code: string; message: string } {
  return res.json<{ error: { code: string; message: string } }>().error;
}

test('move scales velocities by speed, stop stops, and one connected device serves every command', async (t) => {
  const cam = await fixture(t);
  const api = await setUp(t, [{ id: 'dome', source: source(), ptz: true, onvif: cam.url }]);

  const move = await post(api, '/api/ptz/move', { camera_id: 'dome', pan: 0.5, tilt: -1, zoom: 0.25, speed: 0.5 });
  assert.equal(move.statusCode, 200, move.body);
  assert.deepEqual(move.json(), { status: 'ok', message: 'ptz move completed' });
  assert.equal((await post(api, '/api/ptz/move', { camera_id: 'dome', pan: -0.2, tilt: 0, zoom: 1 })).statusCode, 200);
  assert.equal((await post(api, '/api/ptz/move', { camera_id: 'dome', pan: 1, tilt: 1, zoom: 0, speed: 7 })).statusCode, 200);
  assert.equal((await post(api, '/api/ptz/move', { camera_id: 'dome', pan: 1, tilt: 1, zoom: 1, speed: -3 })).statusCode, 200);
  const stop = await post(api, '/api/ptz/stop', { camera_id: 'dome' });
  assert.equal(stop.statusCode, 200, stop.body);
  assert.deepEqual(stop.json(), { status: 'ok', message: 'ptz stop completed' });

  assert.deepEqual(cam.moves, [
    { profileToken: PTZ_PROFILE, x: 0.25, y: -0.5, zoom: 0.125 },
    { profileToken: PTZ_PROFILE, x: -0.2, y: 0, zoom: 1 },
    { profileToken: PTZ_PROFILE, x: 1, y: 1, zoom: 0 },
    { profileToken: PTZ_PROFILE, x: 0, y: 0, zoom: 0 },
  ]);
  assert.deepEqual(cam.stops, [{ profileToken: PTZ_PROFILE }]);
  assert.deepEqual(
    cam.requests.map((r) => r.action),
    ['GetSystemDateAndTime', 'GetServices', 'GetProfiles', 'ContinuousMove', 'ContinuousMove', 'ContinuousMove', 'ContinuousMove', 'Stop'],
  );
  assert.ok(cam.requests.slice(1).every((r) => r.authorized), 'every call after the clock carries a valid UsernameToken digest');
  assert.ok(!api.logText().includes(PASSWORD));
});

test('a device without GetServices is reached through GetCapabilities', async (t) => {
  const cam = await fixture(t, { discovery: 'capabilities' });
  const api = await setUp(t, [{ id: 'old', source: source(), ptz: true, onvif: cam.url }]);
  assert.equal((await post(api, '/api/ptz/stop', { camera_id: 'old' })).statusCode, 200);
  assert.deepEqual(cam.stops, [{ profileToken: PTZ_PROFILE }]);
  assert.ok(cam.requests.some((r) => r.action === 'GetCapabilities'));
});

test('invalid values are 422 naming the field; prerequisites give 404, 403 and 422', async (t) => {
  const api = await setUp(t, [
    { id: 'dome', source: source(), ptz: true, onvif: 'http://127.0.0.1:9/' },
    { id: 'fixed', source: source(), ptz: false },
    { id: 'anonymous', source: 'rtsp://127.0.0.1:8554/s', ptz: true },
    { id: 'user-only', source: `rtsp://${USER}@127.0.0.1:8554/s`, ptz: true },
  ]);
  const invalid: Array<[Record<string, unknown>, string]> = [
    [{ camera_id: 'dome', pan: 1.5, tilt: 0, zoom: 0 }, 'pan'],
    [{ camera_id: 'dome', pan: 0, tilt: -1.01, zoom: 0 }, 'tilt'],
    [{ camera_id: 'dome', pan: 0, tilt: 0 }, 'zoom'],
    [{ camera_id: 'dome', pan: 0, tilt: '0.5', zoom: 0 }, 'tilt'],
    [{ camera_id: 'dome', pan: null, tilt: 0, zoom: 0 }, 'pan'],
    [{ camera_id: 'dome', pan: 0, tilt: 0, zoom: 0, speed: 'fast' }, 'speed'],
    [{ camera_id: 'nobody', pan: 2, tilt: 0, zoom: 0 }, 'pan'],
  ];
  for (const [body, field] of invalid) {
    const res = await post(api, '/api/ptz/move', body);
    assert.equal(res.statusCode, 422, `${JSON.stringify(body)}: ${res.body}`);
    assert.equal(errorOf(res).code, 'invalid_ptz_value');
    assert.match(errorOf(res).message, new RegExp(`^${field}\\b`));
  }
  assert.equal(errorOf(await post(api, '/api/ptz/move', { pan: 0, tilt: 0, zoom: 0 })).code, 'bad_request');
  assert.equal(errorOf(await post(api, '/api/ptz/move', { camera_id: 'dome', pan: 0, tilt: 0, zoom: 0, focus: 1 })).code, 'unknown_field');
  assert.equal(errorOf(await post(api, '/api/ptz/stop', {})).code, 'bad_request');

  for (const path of ['/api/ptz/move', '/api/ptz/stop']) {
    const body = (id: string): Record<string, unknown> => (path.endsWith('move') ? { camera_id: id, pan: 0.1, tilt: 0.1, zoom: 0 } : { camera_id: id });
    const expect = async (id: string, status: number, code: string): Promise<void> => {
      const res = await post(api, path, body(id));
      assert.equal(res.statusCode, status, `${path} ${id}: ${res.body}`);
      assert.equal(errorOf(res).code, code);
    };
    await expect('nobody', 404, 'camera_not_found');
    await expect('fixed', 403, 'ptz_disabled');
    await expect('anonymous', 422, 'ptz_no_credentials');
    await expect('user-only', 422, 'ptz_no_credentials');
    const viewer = await post(api, path, body('dome'), TOKENS.viewer);
    assert.equal(viewer.statusCode, 403);
    assert.equal(errorOf(viewer).code, 'forbidden');
  }
});

test('wrong credentials, a camera fault and a dead device are 502 with the reason and without the password', async (t) => {
  const good = await fixture(t);
  const faulty = await fixture(t, { fault: { action: 'ContinuousMove', reason: `PTZ is locked for ${USER}:${PASSWORD}` } });
  const api = await setUp(t, [
    { id: 'wrong', source: source('Not-the-pw-123'), ptz: true, onvif: good.url },
    { id: 'faulty', source: source(), ptz: true, onvif: faulty.url },
    { id: 'dead', source: source(), ptz: true, onvif: 'http://127.0.0.1:9' },
  ]);
  const move = { pan: 0.1, tilt: 0, zoom: 0 };
  const wrong = await post(api, '/api/ptz/move', { camera_id: 'wrong', ...move });
  assert.equal(wrong.statusCode, 502);
  assert.equal(errorOf(wrong).code, 'ptz_failed');
  assert.match(errorOf(wrong).message, /Sender not authorized/);
  assert.ok(!wrong.body.includes('Not-the-pw-123'));

  const fault = await post(api, '/api/ptz/move', { camera_id: 'faulty', ...move });
  assert.equal(fault.statusCode, 502);
  assert.match(errorOf(fault).message, /ContinuousMove .*PTZ is locked for onvif-admin:\*\*\*/);
  assert.ok(!fault.body.includes(PASSWORD));

  const dead = await post(api, '/api/ptz/stop', { camera_id: 'dead' });
  assert.equal(dead.statusCode, 502);
  assert.match(errorOf(dead).message, /ECONNREFUSED/);
  assert.ok(!api.logText().includes(PASSWORD) && !api.logText().includes('Not-the-pw-123'));
});

test('a device that went away is reconnected once it is back', async (t) => {
  const first = await startOnvifCamera({ user: USER, password: PASSWORD });
  const api = await setUp(t, [{ id: 'dome', source: source(), ptz: true, onvif: first.url }]);
  assert.equal((await post(api, '/api/ptz/stop', { camera_id: 'dome' })).statusCode, 200);
  await first.close();
  assert.equal((await post(api, '/api/ptz/stop', { camera_id: 'dome' })).statusCode, 502);
  const second = await fixture(t, { port: first.port });
  assert.equal((await post(api, '/api/ptz/stop', { camera_id: 'dome' })).statusCode, 200);
  assert.deepEqual(
    second.requests.map((r) => r.action),
    ['GetSystemDateAndTime', 'GetServices', 'GetProfiles', 'Stop'],
  );
});
