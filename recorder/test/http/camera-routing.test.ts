// One place decides where a camera-scoped request goes: answered here, 307 to the node that records it, or 404 for a camera no node knows.
import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import type { CameraLocation } from '../../src/cameras/camera-locator.js';
import type { JobsService } from '../../src/http/routes/archive-jobs.js';
import type { JobRecord } from '../../src/jobs/job-record.js';
import { StreamHub } from '../../src/stream/stream-hub.js';
import { hubCameras, mapLocator, NO_JOBS } from '../support/fakes.js';
import { listenTestApp, TOKENS } from '../support/test-app.js';
import { tryUpgrade } from './live-fixtures.js';

const NODE_B: Extract<CameraLocation, { kind: 'remote' }> = { kind: 'remote', node: 'node-b', url: 'http://vigil-recorder-node-b.vigil.svc:9997', publicUrl: 'https://node-b.vigil.example.com' };
const INTERNAL_ONLY: Extract<CameraLocation, { kind: 'remote' }> = { kind: 'remote', node: 'node-c', url: 'http://vigil-recorder-node-c.vigil.svc:9997/', publicUrl: undefined };
const auth = (role: keyof typeof TOKENS = 'operator') => ({ authorization: `Bearer ${TOKENS[role]}` });

async function cluster(t: TestContext) {
  const hubs = new Map<string, StreamHub | undefined>([['here', new StreamHub('here')]]);
  const submitted: string[] = [];
  const jobs: JobsService = {
    ...NO_JOBS,
    submit: async (spec) => {
      submitted.push(spec.camera_id);
      return { job_id: 'j1', camera_id: spec.camera_id, from: spec.from, to: spec.to, kind: spec.kind, created_at: 0, state: 'pending', progress: 0, attempts: 0 } as JobRecord;
    },
  };
  const live = await listenTestApp(t, {
    cameras: hubCameras(hubs),
    locator: mapLocator((id) => hubs.has(id), new Map([['elsewhere', NODE_B], ['third', INTERNAL_ONLY]])),
    jobs,
  });
  return { ...live, submitted };
}

test('every camera-scoped request for a camera recorded elsewhere is a 307 to that node with the same path and query', async (t) => {
  const { app } = await cluster(t);
  const cases: Array<{ method: 'GET' | 'POST'; url: string; payload?: Record<string, unknown> }> = [
    { method: 'GET', url: '/api/archive/elsewhere/segments?from=1700000000&to=1700003600&tz_offset_minutes=180' },
    { method: 'GET', url: '/api/archive/elsewhere/current' },
    { method: 'GET', url: '/api/cameras/elsewhere/snapshot' },
    { method: 'POST', url: '/api/ptz/move', payload: { camera_id: 'elsewhere', pan: 0.5, tilt: 0, zoom: 0 } },
    { method: 'POST', url: '/api/ptz/stop', payload: { camera_id: 'elsewhere' } },
    { method: 'POST', url: '/cameras/start', payload: { id: 'elsewhere' } },
    { method: 'POST', url: '/cameras/stop', payload: { id: 'elsewhere' } },
  ];
  for (const c of cases) {
    const res = await app.inject({ method: c.method, url: c.url, headers: auth(), ...(c.payload === undefined ? {} : { payload: c.payload }) });
    assert.equal(res.statusCode, 307, `${c.method} ${c.url}`);
    assert.equal(res.headers['location'], `${NODE_B.url}${c.url}`, `${c.method} ${c.url} keeps path and query`);
  }
  // Through the Ingress (X-Forwarded-Host or Forwarded): the owner's public URL.
  for (const via of [{ 'x-forwarded-host': 'vigil.example.com' }, { forwarded: 'for=192.0.2.60;proto=https;host=vigil.example.com' }]) {
    const res = await app.inject({ url: '/api/archive/elsewhere/current?x=1', headers: { ...auth(), ...via } });
    assert.equal(res.statusCode, 307);
    assert.equal(res.headers['location'], `${NODE_B.publicUrl}/api/archive/elsewhere/current?x=1`);
  }
  // An owner without a public URL is named by its internal one even through the Ingress (no double slash).
  const third = await app.inject({ url: '/api/archive/third/current', headers: { ...auth(), 'x-forwarded-host': 'vigil.example.com' } });
  assert.equal(third.headers['location'], 'http://vigil-recorder-node-c.vigil.svc:9997/api/archive/third/current');
});

test('no redirect before authentication and validation: 401, 403 and 422 are answered here', async (t) => {
  const { app } = await cluster(t);
  assert.equal((await app.inject({ url: '/api/archive/elsewhere/segments' })).statusCode, 401);
  assert.equal((await app.inject({ method: 'POST', url: '/cameras/stop', payload: { id: 'elsewhere' }, headers: auth('viewer') })).statusCode, 403);
  const bad = await app.inject({ method: 'POST', url: '/api/ptz/move', payload: { camera_id: 'elsewhere', pan: 7, tilt: 0, zoom: 0 }, headers: auth() });
  assert.equal(bad.statusCode, 422);
  assert.equal(bad.json<{ error: { code: string } }>().error.code, 'invalid_ptz_value');
});

test('a camera no node knows: 404 camera_not_found everywhere but the listing, which is an empty archive', async (t) => {
  const { app } = await cluster(t);
  const listing = await app.inject({ url: '/api/archive/nowhere/segments', headers: auth('viewer') });
  assert.equal(listing.statusCode, 200);
  assert.deepEqual(listing.json(), { archive: [], days: [] });
  for (const c of [
    { method: 'GET' as const, url: '/api/archive/nowhere/current' },
    { method: 'GET' as const, url: '/api/cameras/nowhere/snapshot' },
    { method: 'POST' as const, url: '/api/ptz/stop', payload: { camera_id: 'nowhere' } },
    { method: 'POST' as const, url: '/cameras/start', payload: { id: 'nowhere' } },
  ]) {
    const res = await app.inject({ method: c.method, url: c.url, headers: auth(), ...('payload' in c ? { payload: c.payload } : {}) });
    assert.equal(res.statusCode, 404, c.url);
    assert.equal(res.json<{ error: { code: string } }>().error.code, 'camera_not_found', c.url);
  }
});

test('export and time-lapse are never redirected: they read the receiving node’s own files', async (t) => {
  const { app, submitted } = await cluster(t);
  const res = await app.inject({ method: 'POST', url: '/api/archive/elsewhere/export?from=1700000000&to=1700000600', headers: auth() });
  assert.equal(res.statusCode, 202);
  assert.deepEqual(submitted, ['elsewhere']);
});

test('"*" starts and stops this node’s cameras and is never redirected', async (t) => {
  const { app } = await cluster(t);
  const res = await app.inject({ method: 'POST', url: '/cameras/stop', payload: { id: '*' }, headers: auth() });
  assert.equal(res.statusCode, 200);
});

test('the live WebSocket upgrade for a camera recorded elsewhere is a 307 naming the owner; an unknown camera is 404', async (t) => {
  const { url } = await cluster(t);
  const moved = await tryUpgrade(`${url}/websocket/elsewhere?keep=1`, auth('viewer'));
  assert.equal(moved.status, 307);
  assert.equal(moved.headers['location'], `${NODE_B.url}/websocket/elsewhere?keep=1`);
  const unknown = await tryUpgrade(`${url}/websocket/nowhere`, auth('viewer'));
  assert.equal(unknown.status, 404);
  assert.equal(JSON.parse(unknown.body).error.code, 'camera_not_found');
  const anonymous = await tryUpgrade(`${url}/websocket/elsewhere`);
  assert.equal(anonymous.status, 401, 'no redirect without a token');
});

test('a 307 never carries a long-lived token: access_token is dropped from Location, a ticket passes and opens the camera on the owner', async (t) => {
  const { app, url } = await cluster(t);
  // A client that still puts its token in the URL (and in the header, so it is let through): not passed on.
  for (const path of ['/api/archive/elsewhere/play?from=1700000000&access_token=LEAKED&to=1700000600', '/api/archive/elsewhere/current?access_token=LEAKED']) {
    const res = await app.inject({ url: path, headers: auth('viewer') });
    assert.equal(res.statusCode, 307);
    assert.doesNotMatch(String(res.headers['location']), /access_token|LEAKED/, path);
  }
  const play = await app.inject({ url: '/api/archive/elsewhere/play?from=1700000000&access_token=LEAKED&to=1700000600', headers: auth('viewer') });
  assert.equal(play.headers['location'], `${NODE_B.url}/api/archive/elsewhere/play?from=1700000000&to=1700000600`, 'the rest of the query kept');
  const upgrade = await tryUpgrade(`${url}/websocket/elsewhere?access_token=LEAKED`, auth('viewer'));
  assert.equal(upgrade.status, 307);
  assert.doesNotMatch(String(upgrade.headers['location']), /access_token|LEAKED/);
  // A long-lived token in the URL alone is not accepted at all.
  assert.equal((await app.inject({ url: `/api/archive/elsewhere/current?access_token=${TOKENS.viewer}` })).statusCode, 401);

  // A ticket minted here for the camera's media passes with the redirect, and the owner (another app sharing the
  // cluster token, as the nodes of a cluster do) accepts it for that camera and purpose only.
  const minted = await app.inject({ method: 'POST', url: '/api/tickets', headers: auth('viewer'), payload: { purpose: 'media', camera_id: 'elsewhere' } });
  assert.equal(minted.statusCode, 200);
  const { ticket, expires_at: expiresAt } = minted.json<{ ticket: string; expires_at: number }>();
  assert.ok(expiresAt > Date.now() / 1000 && expiresAt <= Date.now() / 1000 + 300, 'short-lived: at most 5 minutes');
  const viaTicket = await app.inject({ url: `/api/archive/elsewhere/play?from=1700000000&to=1700000600&ticket=${encodeURIComponent(ticket)}` });
  assert.equal(viaTicket.statusCode, 307);
  const location = new URL(String(viaTicket.headers['location']));
  assert.equal(location.searchParams.get('ticket'), ticket);
  const owner = await listenTestApp(t, { cameras: hubCameras(new Map([['elsewhere', new StreamHub('elsewhere')]])) });
  const onOwner = await owner.app.inject({ url: `${location.pathname}${location.search}` });
  assert.equal(onOwner.statusCode, 404, 'let in on the owner (which has nothing recorded)');
  assert.equal(onOwner.json<{ error: { code: string } }>().error.code, 'no_recordings');
  assert.equal((await owner.app.inject({ url: `/api/archive/here/play?from=1700000000&to=1700000600&ticket=${encodeURIComponent(ticket)}` })).statusCode, 401, 'another camera');
  assert.equal((await owner.app.inject({ url: `/api/archive/elsewhere/current?ticket=${encodeURIComponent(ticket)}` })).statusCode, 401, 'a route tickets do not open');
  assert.equal((await owner.app.inject({ method: 'POST', url: '/api/tickets', payload: { purpose: 'live', camera_id: 'elsewhere' }, query: { ticket } })).statusCode, 401, 'a ticket cannot mint another');
});
