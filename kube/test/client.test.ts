// KubeClient against kube-apiserver (through the tests' fault proxy): get/create/replace/patch/delete with the API's answers as errors,
// server-side apply by two field managers on one status, timeouts and abort that never hang, and watch.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { startControlPlane } from '@vigil/testing/kube/control-plane/control-plane';
import { tempDir } from '@vigil/testing/temp-dir';
import { ApiError, isAlreadyExists, isConflict, KubeClient, loadKubeConfig, Resources, type ConfigMap, type KubeObject, type Lease, type WatchEventType } from '../src/index.js';

async function controlPlaneAndClient(t: TestContext) {
  const dir = await tempDir(t, 'vigil-client-');
  const controlPlane = await startControlPlane(dir);
  t.after(() => controlPlane.close());
  await controlPlane.writeKubeconfig(join(dir, 'kubeconfig'), { token: controlPlane.adminToken, namespace: 'default' });
  const client = new KubeClient(loadKubeConfig({ KUBECONFIG: join(dir, 'kubeconfig') }), { requestTimeoutMs: 2000 });
  t.after(() => client.close());
  return { faults: controlPlane.faults, client };
}

const cm = (name: string, data: Record<string, string>): ConfigMap => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' }, data });

test('CRUD with the API server\'s answers: 404 as undefined, 409 on a stale version or an existing name, delete of a missing object is fine', async (t) => {
  const { client } = await controlPlaneAndClient(t);
  assert.equal(await client.get(Resources.configMaps, 'default', 'none'), undefined);
  const created = await client.create(Resources.configMaps, cm('a', { k: '1' }));
  await assert.rejects(client.create(Resources.configMaps, cm('a', { k: '1' })), (err: unknown) => isAlreadyExists(err));
  const replaced = await client.replace(Resources.configMaps, { ...created, data: { k: '2' } });
  await assert.rejects(client.replace(Resources.configMaps, { ...created, data: { k: '3' } }), (err: unknown) => isConflict(err) && !isAlreadyExists(err));
  const patched = await client.mergePatch<ConfigMap>(Resources.configMaps, 'default', 'a', { data: { extra: 'x' } });
  assert.deepEqual(patched.data, { k: '2', extra: 'x' });
  assert.notEqual(patched.metadata.resourceVersion, replaced.metadata.resourceVersion);
  await assert.rejects(client.delete(Resources.configMaps, 'default', 'a', { uid: 'not-its-uid' }), (err: unknown) => err instanceof ApiError && err.status === 409);
  await client.delete(Resources.configMaps, 'default', 'a', { uid: created.metadata.uid });
  await client.delete(Resources.configMaps, 'default', 'a');
  const list = await client.list<ConfigMap>(Resources.configMaps, { namespace: 'default', labelSelector: 'none=here' });
  assert.deepEqual(list.items, []);
  assert.match(list.metadata?.resourceVersion ?? '', /^\d+$/);
});

test('server-side apply: each field manager keeps its own fields, drops what it no longer applies, and a conflict needs force', async (t) => {
  const { client } = await controlPlaneAndClient(t);
  const lease = (annotations: Record<string, string>, spec?: Lease['spec']): Lease => ({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'l', namespace: 'default', annotations }, ...(spec ? { spec } : {}) });
  await client.apply(Resources.leases, lease({ one: '1', both: 'x' }, { holderIdentity: 'me' }), { fieldManager: 'first' });
  await client.apply(Resources.leases, lease({ two: '2' }), { fieldManager: 'second' });
  let l = await client.apply(Resources.leases, lease({ both: 'x' }, { holderIdentity: 'me' }), { fieldManager: 'first' });
  assert.deepEqual(l.metadata.annotations, { both: 'x', two: '2' }, 'first dropped "one", second kept "two"');
  await assert.rejects(client.apply(Resources.leases, lease({ both: 'y' }), { fieldManager: 'second' }), (err: unknown) => isConflict(err));
  l = await client.apply(Resources.leases, lease({ both: 'y', two: '2' }), { fieldManager: 'second', force: true });
  assert.equal(l.metadata.annotations?.both, 'y');
  const managers = (l.metadata as { managedFields?: Array<{ manager: string }> }).managedFields?.map((m) => m.manager);
  assert.deepEqual(managers?.sort(), ['first', 'second']);
});

test('a request the API server does not answer times out; an aborted one ends at once', async (t) => {
  const { faults, client } = await controlPlaneAndClient(t);
  faults.setLatency(5000);
  const started = Date.now();
  await assert.rejects(client.get(Resources.configMaps, 'default', 'x', { timeoutMs: 300 }), (err: unknown) => err instanceof ApiError && err.reason === 'Timeout');
  assert.ok(Date.now() - started < 2000, 'no longer than its timeout');
  const abort = new AbortController();
  const pending = client.get(Resources.configMaps, 'default', 'x', { signal: abort.signal, timeoutMs: 10_000 });
  setTimeout(() => abort.abort(), 100);
  await assert.rejects(pending);
  assert.ok(Date.now() - started < 3000);
  faults.setLatency(0);
});

test('watch: events from a resourceVersion, and a 410 for a compacted one', async (t) => {
  const { faults, client } = await controlPlaneAndClient(t);
  const { metadata } = await client.list(Resources.configMaps, { namespace: 'default' });
  const seen: Array<[WatchEventType, string]> = [];
  const done = new Promise<unknown>((resolve) => {
    const handle = client.watch(Resources.configMaps, { namespace: 'default', resourceVersion: metadata?.resourceVersion ?? '', timeoutSeconds: 30 }, (type, obj) => {
      if (type !== 'BOOKMARK') seen.push([type, (obj as KubeObject).metadata?.name ?? '']);
      if (seen.length === 3) {
        handle.abort();
        resolve(undefined);
      }
    }, resolve);
  });
  const a = await client.create(Resources.configMaps, cm('w', { k: '1' }));
  await client.replace(Resources.configMaps, { ...a, data: { k: '2' } });
  await client.delete(Resources.configMaps, 'default', 'w');
  await done;
  assert.deepEqual(seen, [['ADDED', 'w'], ['MODIFIED', 'w'], ['DELETED', 'w']]);

  await faults.compactHistory();
  const err = await new Promise<unknown>((resolve) => {
    client.watch(Resources.configMaps, { namespace: 'default', resourceVersion: metadata?.resourceVersion ?? '', timeoutSeconds: 30 }, (type, obj) => {
      if (type === 'ERROR') resolve(obj);
    }, resolve);
  });
  assert.equal((err as { code?: number; status?: number }).code ?? (err as ApiError).status, 410);
});

test('a request turned away with 429 and a Retry-After is sent again once the server takes it', async (t) => {
  const { faults, client } = await controlPlaneAndClient(t);
  faults.failRequests({ status: 429, forMs: 1500 });
  const created = await client.create(Resources.configMaps, cm('after-429', { k: '1' }));
  assert.equal(created.metadata.name, 'after-429');
  assert.equal((await client.get<ConfigMap>(Resources.configMaps, 'default', 'after-429'))?.data?.k, '1');
});
