// Informer against kube-apiserver (through the tests' fault proxy): list+watch into the cache (without managedFields), and back in step after dropped watches, 410 Gone and 500s.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { pino } from 'pino';
import { KubeConfig } from '@vigil/testing/kube/client-node';
import { startControlPlane } from '@vigil/testing/kube/control-plane/control-plane';
import { waitUntil } from '@vigil/testing/processes';
import { tempDir } from '@vigil/testing/temp-dir';
import { Informer, KubeClient, Resources, systemClock, type ConfigMap } from '../src/index.js';

/** A control plane and a client of it (the administrator's token, through the fault proxy), both closed when the test ends. */
async function controlPlaneAndClient(t: TestContext) {
  const dir = await tempDir(t, 'vigil-informer-');
  const controlPlane = await startControlPlane(dir);
  t.after(() => controlPlane.close());
  await controlPlane.writeKubeconfig(join(dir, 'kubeconfig'), { token: controlPlane.adminToken, namespace: 'default' });
  const kc = new KubeConfig();
  kc.loadFromFile(join(dir, 'kubeconfig'));
  const client = new KubeClient(kc);
  t.after(() => client.close());
  return { faults: controlPlane.faults, client };
}

test('the cache follows creates, updates and deletes, and recovers from dropped watches, 410 Gone and 500s', async (t) => {
  const { faults, client } = await controlPlaneAndClient(t);
  await client.create(Resources.configMaps, { metadata: { name: 'before', namespace: 'default' }, data: { a: '1' } } as ConfigMap);

  const informer = new Informer<ConfigMap>('configmaps', client, Resources.configMaps, pino({ level: 'silent' }), systemClock, { namespace: 'default', minRetryMs: 100, maxRetryMs: 500 });
  const changed: string[] = [];
  informer.onChange((key) => changed.push(key));
  informer.start();
  t.after(() => informer.stop());
  await informer.waitForSync();
  assert.equal(informer.get('default/before')?.data?.a, '1');

  const put = async (name: string, value: string) => {
    const cur = await client.get<ConfigMap>(Resources.configMaps, 'default', name);
    if (cur) await client.replace(Resources.configMaps, { ...cur, data: { a: value } });
    else await client.create(Resources.configMaps, { metadata: { name, namespace: 'default' }, data: { a: value } } as ConfigMap);
  };
  const seen = (name: string, value: string | undefined) => waitUntil(() => informer.get(`default/${name}`)?.data?.a === value, 10_000, `${name}=${value} in the cache`, 50);

  await put('one', '1');
  await seen('one', '1');
  await put('one', '2');
  await seen('one', '2');
  // The API server's answer carries managedFields; the cache keeps the object without them (watched or written here).
  const answered = await client.get<ConfigMap>(Resources.configMaps, 'default', 'one');
  assert.ok(answered !== undefined && 'managedFields' in answered.metadata);
  assert.equal('managedFields' in (informer.get('default/one')?.metadata ?? {}), false, 'from the watch');
  informer.upsert(await client.replace(Resources.configMaps, { ...answered, data: { a: '2', b: '1' } }));
  assert.equal(informer.get('default/one')?.data?.b, '1');
  assert.equal('managedFields' in (informer.get('default/one')?.metadata ?? {}), false, 'from a local write');
  await client.delete(Resources.configMaps, 'default', 'before');
  await seen('before', undefined);
  assert.ok(changed.includes('default/one') && changed.includes('default/before'));

  faults.dropWatches();
  await put('two', '1');
  await seen('two', '1');

  const listsBefore = informer.stats.lists;
  await faults.compactHistory();
  faults.dropWatches();
  await put('three', '1');
  await seen('three', '1');
  await waitUntil(() => informer.stats.gone > 0 && informer.stats.lists > listsBefore, 10_000, 'a 410 and a re-list');

  faults.failRequests({ status: 500, forMs: 1500 });
  faults.dropWatches();
  await new Promise((r) => setTimeout(r, 1600));
  await put('four', '1');
  await seen('four', '1');
  assert.ok(informer.stats.errors > 0);
});

test('a local write that the watch has already overtaken with a deletion does not bring the object back', async (t) => {
  const { client } = await controlPlaneAndClient(t);
  const informer = new Informer<ConfigMap>('configmaps', client, Resources.configMaps, pino({ level: 'silent' }), systemClock, { namespace: 'default' });
  informer.start();
  t.after(() => informer.stop());
  await informer.waitForSync();
  const inCache = (name: string, present: boolean) => waitUntil(() => (informer.get(`default/${name}`) !== undefined) === present, 10_000, `${name} ${present ? 'in' : 'gone from'} the cache`, 20);

  // The order a busy operator sees: delete, the DELETED event, then its own "being deleted" mark of the old copy.
  informer.upsert(await client.create(Resources.configMaps, { metadata: { name: 'pod-like', namespace: 'default' }, data: { a: '1' } } as ConfigMap));
  await inCache('pod-like', true);
  const before = informer.get('default/pod-like')!;
  await client.delete(Resources.configMaps, 'default', 'pod-like');
  await inCache('pod-like', false);
  informer.upsert({ ...before, metadata: { ...before.metadata, deletionTimestamp: new Date().toISOString() } });
  assert.equal(informer.get('default/pod-like'), undefined, 'a deleted object came back into the cache');

  // A new object of the same name is newer than the deletion: its create's response goes in, before the watch or not.
  const again = await client.create(Resources.configMaps, { metadata: { name: 'pod-like', namespace: 'default' }, data: { a: '2' } } as ConfigMap);
  informer.upsert(again);
  assert.equal(informer.get('default/pod-like')?.data?.a, '2');
  await client.delete(Resources.configMaps, 'default', 'pod-like');
  await inCache('pod-like', false);
});

test('a field selector the server refuses (400): everything is listed and watched, and only what matches is kept', async (t) => {
  const { client } = await controlPlaneAndClient(t);
  const put = async (name: string, owner: string) => {
    const cur = await client.get<ConfigMap>(Resources.configMaps, 'default', name);
    if (cur) await client.replace(Resources.configMaps, { ...cur, data: { owner } });
    else await client.create(Resources.configMaps, { metadata: { name, namespace: 'default' }, data: { owner } } as ConfigMap);
  };
  await put('mine', 'me');
  await put('theirs', 'them');
  // ConfigMaps have no selectable field `data.owner`, as Cameras have none on an API server before CRD selectableFields.
  await assert.rejects(client.list(Resources.configMaps, { namespace: 'default', fieldSelector: 'data.owner=me' }), (err: { status?: number }) => err.status === 400);
  const informer = new Informer<ConfigMap>('owned', client, Resources.configMaps, pino({ level: 'silent' }), systemClock, {
    namespace: 'default', fieldSelector: 'data.owner=me', matches: (o) => (o as ConfigMap).data?.owner === 'me', minRetryMs: 100, maxRetryMs: 500,
  });
  const removed: string[] = [];
  informer.onChange((key, obj) => obj === undefined && removed.push(key));
  informer.start();
  t.after(() => informer.stop());
  await informer.waitForSync();
  const names = () => informer.list().map((o) => o.metadata.name).sort();
  assert.deepEqual(names(), ['mine']);
  await put('theirs', 'me');
  await waitUntil(() => names().join() === 'mine,theirs', 10_000, 'theirs selected once it matches', 50);
  await put('mine', 'them');
  await waitUntil(() => names().join() === 'theirs', 10_000, 'mine gone once it no longer matches', 50);
  assert.deepEqual(removed, ['default/mine'], 'a change out of the selection is a deletion for the handlers');
  // A local write that takes an object out of the selection takes it out of the cache too.
  const theirs = await client.get<ConfigMap>(Resources.configMaps, 'default', 'theirs');
  informer.upsert(await client.replace(Resources.configMaps, { ...theirs!, data: { owner: 'nobody' } }));
  assert.deepEqual(names(), []);
  assert.ok(informer.stats.objects >= 4 && informer.stats.bytes > 0, 'objects and bytes received are counted');
});
