// GET /api/health/ready as callers see it: the bare answer for anyone, checks and failed for a token of any role.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ReadinessReport } from '../../src/health/readiness.js';
import { hubCameras } from '../support/fakes.js';
import { buildTestApp, TOKENS } from '../support/test-app.js';

const failing: ReadinessReport = {
  ready: false,
  failed: ['recordings_dir', 'license'],
  checks: {
    storage: { configured: false, reachable: false },
    cluster_store: { configured: false },
    recordings_dir: { path: '/srv/rec', writable: false },
    license: { valid: false },
  },
};

async function app(report: ReadinessReport, disabled = false) {
  return (await buildTestApp({ cameras: hubCameras(new Map()), readiness: report, authDisabled: disabled, version: '9.8.7' })).app;
}

test('not ready: 503 with status, version, timestamp only for anonymous or wrong tokens; checks and failed for a viewer', async (t) => {
  const server = await app(failing);
  t.after(() => server.close());
  for (const headers of [{}, { authorization: 'Bearer wrong' }]) {
    const res = await server.inject({ url: '/api/health/ready', headers });
    assert.equal(res.statusCode, 503);
    const body = res.json<Record<string, unknown>>();
    assert.deepEqual(Object.keys(body).sort(), ['status', 'timestamp', 'version']);
    assert.equal(body['status'], 'not_ready');
    assert.equal(body['version'], '9.8.7');
    assert.match(String(body['timestamp']), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d$/);
  }
  const res = await server.inject({ url: '/api/health/ready', headers: { authorization: `Bearer ${TOKENS.viewer}` } });
  assert.equal(res.statusCode, 503);
  const body = res.json<Record<string, unknown>>();
  assert.equal(body['status'], 'not_ready');
  assert.deepEqual(body['checks'], failing.checks);
  assert.deepEqual(body['failed'], ['recordings_dir', 'license']);
  assert.equal(res.headers['cache-control'], 'no-store');
});

test('ready: 200; with auth disabled every caller gets the checks', async (t) => {
  const ok: ReadinessReport = { ready: true, failed: [], checks: { ...failing.checks, recordings_dir: { path: '/srv/rec', writable: true }, license: { valid: true } } };
  const server = await app(ok, true);
  t.after(() => server.close());
  const res = await server.inject({ url: '/api/health/ready' });
  assert.equal(res.statusCode, 200);
  const body = res.json<Record<string, unknown>>();
  assert.equal(body['status'], 'ready');
  assert.deepEqual(body['failed'], []);
  assert.deepEqual(body['checks'], ok.checks);
});
