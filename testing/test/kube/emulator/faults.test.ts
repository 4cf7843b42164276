// Fault injection, in process and over the admin HTTP API: cut-off clients (refused or hung), latency, injected errors, reset.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openWatch } from './watch-reader.js';
import { startEmulatorFixture } from './emulator-fixture.js';

async function status(url: string, token: string, timeoutMs = 30_000): Promise<number | string> {
  try {
    const res = await fetch(url, { headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(timeoutMs) });
    await res.arrayBuffer();
    return res.status;
  } catch (err) {
    return (err as Error).name === 'TimeoutError' ? 'timeout' : 'connection error';
  }
}

test('a cut-off client is refused or left hanging, its watches break, others carry on, and restore brings it back', async (t) => {
  const f = await startEmulatorFixture(t);
  await f.request('POST', '/api/v1/namespaces/default/serviceaccounts', { metadata: { name: 'recorder' } });
  await f.request('POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', { metadata: { name: 'recorder-admin' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' }, subjects: [{ kind: 'ServiceAccount', name: 'recorder', namespace: 'default' }] });
  const token = await f.emulator.issueServiceAccountToken('default', 'recorder');
  const leases = `${f.emulator.url}/apis/coordination.k8s.io/v1/namespaces/default/leases`;
  assert.equal(await status(leases, token), 200);
  const watch = await openWatch(`${leases}?watch=true`, token);
  t.after(() => watch.close());

  f.emulator.faults.cutOff(token, 'refuse');
  assert.equal(await status(leases, token), 'connection error');
  await watch.waitFor(() => watch.ended, 'the cut-off client\'s watch to break');
  assert.equal(await status(leases, f.emulator.adminToken), 200, 'other clients are unaffected');

  f.emulator.faults.cutOff(token, 'hang');
  assert.equal(await status(leases, token, 500), 'timeout');
  f.emulator.faults.restore(token);
  assert.equal(await status(leases, token), 200);

  // The same over the admin API, as the binary's users drive it.
  const admin = (path: string, body: unknown) => f.request('POST', `/emulator/faults/${path}`, body);
  assert.equal((await admin('cut-off', { token, mode: 'refuse' })).status, 200);
  assert.equal(await status(leases, token), 'connection error');
  assert.equal((await admin('restore', { token })).status, 200);
  assert.equal(await status(leases, token), 200);
  const notAdmin = await f.request('POST', '/emulator/faults/reset', {}, { token });
  assert.equal(notAdmin.status, 403);
});

test('injected failures answer Status objects for a count, a time or one token; latency delays every request; reset undoes all', async (t) => {
  const f = await startEmulatorFixture(t);
  const path = '/api/v1/namespaces/default/configmaps';
  f.emulator.faults.failRequests({ status: 503, count: 2 });
  const first = await f.request('GET', path);
  assert.equal(first.status, 503);
  assert.deepEqual({ kind: (first.body as { kind: string }).kind, code: (first.body as { code: number }).code, reason: (first.body as { reason: string }).reason }, { kind: 'Status', code: 503, reason: 'ServiceUnavailable' });
  assert.equal((await f.request('GET', path)).status, 503);
  assert.equal((await f.request('GET', path)).status, 200);

  f.emulator.faults.failRequests({ token: 'someone-else' });
  assert.equal((await f.request('GET', path)).status, 200, 'a failure for another token leaves us alone');
  f.emulator.faults.failRequests({});
  assert.equal((await f.request('GET', path)).status, 500);
  f.emulator.faults.clearFailures();
  assert.equal((await f.request('GET', path)).status, 200);

  assert.equal((await f.request('POST', '/emulator/faults/fail-requests', { status: 500, forMs: 60_000 })).status, 200);
  assert.equal((await f.request('GET', path)).status, 500);
  assert.equal((await f.request('POST', '/emulator/faults/latency', { ms: 300 })).status, 200);
  const started = Date.now();
  await f.request('GET', path);
  assert.ok(Date.now() - started >= 250, 'latency is added');
  assert.equal((await f.request('POST', '/emulator/faults/reset', {})).status, 200);
  assert.equal((await f.request('GET', path)).status, 200);
  const stats = (await f.request('GET', '/emulator/stats')).body as { resourceVersion: number };
  assert.ok(stats.resourceVersion > 0);
});
