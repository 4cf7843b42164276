// @kubernetes/client-node against the emulator: informers across a dropped watch and a forced 410, Lease optimistic concurrency, status updates with 409.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import yaml from 'js-yaml';
import { waitUntil } from '../../../src/processes.js';
import { FIXTURES, ok, startEmulatorFixture } from './emulator-fixture.js';

function apiCode(err: unknown): number | undefined {
  return err instanceof k8s.ApiException ? err.code : undefined;
}

test('a client-node informer follows adds, updates and deletes across a dropped watch and a forced 410 (it re-lists)', async (t) => {
  const lists: string[] = [];
  const f = await startEmulatorFixture(t, {
    historyLimit: 50,
    requestLog: (line) => {
      if (/^GET \/api\/v1\/namespaces\/default\/configmaps(\?(?!.*watch=true)\S*)? /.test(line)) lists.push(line);
    },
  });
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(f.kubeconfig);
  const core = kc.makeApiClient(k8s.CoreV1Api);
  const informer = k8s.makeInformer(kc, '/api/v1/namespaces/default/configmaps', () => core.listNamespacedConfigMap({ namespace: 'default', labelSelector: 'app=demo' }), 'app=demo');
  const seen = new Map<string, string | undefined>();
  const errors: unknown[] = [];
  informer.on('add', (o) => seen.set(o.metadata?.name as string, o.data?.v));
  informer.on('update', (o) => seen.set(o.metadata?.name as string, o.data?.v));
  informer.on('delete', (o) => seen.delete(o.metadata?.name as string));
  // What an operator does: on a watch error, start again after a pause.
  let stopped = false;
  informer.on('error', (err) => {
    errors.push(err);
    if (!stopped) setTimeout(() => { if (!stopped) void informer.start(); }, 100);
  });
  t.after(async () => { stopped = true; await informer.stop(); });
  const create = (name: string, v: string, labels: Record<string, string> = { app: 'demo' }) => core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name, labels }, data: { v } } });

  await create('a', '1');
  await create('ignored', '1', { app: 'other' });
  await informer.start();
  await waitUntil(() => seen.get('a') === '1', 30_000, 'the informer to list a');

  await create('b', '1');
  await core.patchNamespacedConfigMap({ name: 'a', namespace: 'default', body: { data: { v: '2' } } }, k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch));
  await waitUntil(() => seen.get('a') === '2' && seen.get('b') === '1', 30_000, 'watch events for a and b');
  const listsBefore = lists.length;

  // Dropped watch: the informer watches again from where it was, no re-list needed.
  f.emulator.faults.dropWatches();
  await create('c', '1');
  await waitUntil(() => seen.get('c') === '1', 30_000, 'c after the dropped watch');
  assert.equal(lists.length, listsBefore, 'a dropped watch resumes from its resourceVersion without listing');

  // Forced 410: history forgotten while the informer is away, so it must re-list to catch up.
  f.emulator.faults.compactHistory();
  f.emulator.faults.dropWatches();
  await core.deleteNamespacedConfigMap({ name: 'b', namespace: 'default' });
  await create('d', '1');
  await waitUntil(() => !seen.has('b') && seen.get('d') === '1', 30_000, 'the informer to catch up after 410 Gone');
  assert.ok(lists.length > listsBefore, 'a 410 makes the informer list again');
  assert.deepEqual(new Set(seen.keys()), new Set(['a', 'c', 'd']));
  assert.deepEqual(new Set(informer.list('default').map((o) => o.metadata?.name)), new Set(['a', 'c', 'd']));

  // More writes than the history keeps, then a watch from the old version: 410 as an ERROR event, as the real server sends it.
  const rv = (await core.listNamespacedConfigMap({ namespace: 'default' })).metadata?.resourceVersion as string;
  for (let i = 0; i < 60; i++) await core.patchNamespacedConfigMap({ name: 'ignored', namespace: 'default', body: { data: { v: String(i) } } }, k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch));
  const res = await f.request('GET', `/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=${rv}&timeoutSeconds=5`);
  assert.equal(res.status, 200);
  type WatchEvent = { type: string; object: { code: number; reason: string; message: string } };
  // One line only (the server ends the watch after it), so the helper already parsed it.
  const first = (typeof res.body === 'string' ? JSON.parse(res.body.split('\n')[0] as string) : res.body) as WatchEvent;
  assert.equal(first.type, 'ERROR');
  assert.equal(first.object.code, 410);
  assert.equal(first.object.reason, 'Expired');
  assert.match(first.object.message, /^too old resource version: \d+ \(\d+\)$/);
});

test('Lease optimistic concurrency: two writers with the same resourceVersion, one wins, the other gets 409 Conflict', async (t) => {
  const f = await startEmulatorFixture(t);
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(f.kubeconfig);
  const leases = kc.makeApiClient(k8s.CoordinationV1Api);
  const now = () => new k8s.V1MicroTime();
  await leases.createNamespacedLease({ namespace: 'default', body: { metadata: { name: 'vigil-operator' }, spec: { holderIdentity: 'op-a', leaseDurationSeconds: 6, acquireTime: now(), renewTime: now(), leaseTransitions: 0 } } });
  const duplicate = await leases.createNamespacedLease({ namespace: 'default', body: { metadata: { name: 'vigil-operator' }, spec: { holderIdentity: 'op-b' } } }).catch((e: unknown) => e);
  assert.equal(apiCode(duplicate), 409);
  assert.match(String((duplicate as k8s.ApiException<string>).body), /leases.coordination.k8s.io \\"vigil-operator\\" already exists/);

  const seenByA = await leases.readNamespacedLease({ name: 'vigil-operator', namespace: 'default' });
  const seenByB = await leases.readNamespacedLease({ name: 'vigil-operator', namespace: 'default' });
  const renew = (lease: k8s.V1Lease, holder: string) => leases.replaceNamespacedLease({ name: 'vigil-operator', namespace: 'default', body: { ...lease, spec: { ...lease.spec, holderIdentity: holder, renewTime: now() } } });
  const results = await Promise.allSettled([renew(seenByA, 'op-a'), renew(seenByB, 'op-b')]);
  const won = results.filter((r) => r.status === 'fulfilled');
  const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
  assert.equal(won.length, 1);
  assert.equal(lost.length, 1);
  assert.equal(apiCode(lost[0]?.reason), 409);
  assert.match(String((lost[0]?.reason as k8s.ApiException<string>).body), /Operation cannot be fulfilled on leases.coordination.k8s.io \\"vigil-operator\\": the object has been modified; please apply your changes to the latest version and try again/);
  const holder = (won[0] as PromiseFulfilledResult<k8s.V1Lease>).value.spec?.holderIdentity;
  assert.equal((await leases.readNamespacedLease({ name: 'vigil-operator', namespace: 'default' })).spec?.holderIdentity, holder);

  // Renewing from the fresh copy works; resourceVersion moves on every write.
  const fresh = await leases.readNamespacedLease({ name: 'vigil-operator', namespace: 'default' });
  const renewed = await renew(fresh, holder as string);
  assert.notEqual(renewed.metadata?.resourceVersion, fresh.metadata?.resourceVersion);
});

test('custom resource status updates go through /status with optimistic concurrency and leave spec and generation alone', async (t) => {
  const f = await startEmulatorFixture(t);
  ok(await f.kubectl(['apply', '-f', join(FIXTURES, 'camera-crd.yaml')]), 'crd');
  ok(await f.kubectl(['wait', '--for=condition=Established', 'crd/cameras.vigil.io', '--timeout=30s']), 'established');
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(f.kubeconfig);
  const custom = kc.makeApiClient(k8s.CustomObjectsApi);
  const ref = { group: 'vigil.io', version: 'v1alpha1', namespace: 'default', plural: 'cameras' };
  const body = yaml.load(await readFile(join(FIXTURES, 'camera-porch.yaml'), 'utf8')) as Record<string, unknown>;
  const created = await custom.createNamespacedCustomObject({ ...ref, body: { ...body, status: { phase: 'Recording' } } }) as { metadata: { resourceVersion: string; generation: number }; status?: unknown };
  assert.equal(created.status, undefined, 'status is not set through the main resource');
  assert.equal(created.metadata.generation, 1);

  const status = { phase: 'Assigned', node: 'n1', observedGeneration: 1, conditions: [{ type: 'Assigned', status: 'True', reason: 'LeastLoaded', message: 'n1', lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z') }] };
  const updated = await custom.replaceNamespacedCustomObjectStatus({ ...ref, name: 'porch', body: { ...created, spec: { source: 'rtsp://ignored/' }, status } }) as { metadata: { resourceVersion: string; generation: number }; spec: { source: string }; status: typeof status };
  assert.equal(updated.status.node, 'n1');
  assert.equal(updated.spec.source, 'rtsp://192.0.2.10/stream1', 'a /status update does not change spec');
  assert.equal(updated.metadata.generation, 1, 'status changes do not bump generation');

  const stale = await custom.replaceNamespacedCustomObjectStatus({ ...ref, name: 'porch', body: { ...created, status: { phase: 'Failed' } } }).catch((e: unknown) => e);
  assert.equal(apiCode(stale), 409);

  const bogus = await custom.replaceNamespacedCustomObjectStatus({ ...ref, name: 'porch', body: { ...updated, status: { phase: 'Exploded' } } }).catch((e: unknown) => e);
  assert.equal(apiCode(bogus), 422);
  assert.match(String((bogus as k8s.ApiException<string>).body), /status.phase: Unsupported value: \\"Exploded\\": supported values: \\"Pending\\", \\"Assigned\\", \\"Recording\\", \\"Failed\\"/);
});
