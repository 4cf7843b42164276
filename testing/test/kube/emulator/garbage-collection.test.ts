// The garbage collector as kube-controller-manager runs it: foreground deletion waits for blocking dependents, dangling owners are collected, references across namespaces are absent, a cluster-scoped dependent of a namespaced kind is never collected and both are reported.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { waitUntil } from '../../../src/processes.js';
import { FIXTURES, ok, startEmulatorFixture, type EmulatorFixture } from './emulator-fixture.js';

type Obj = { apiVersion: string; kind: string; metadata: { name: string; uid: string; namespace?: string; deletionTimestamp?: string; finalizers?: string[] } };

const exists = async (f: EmulatorFixture, path: string) => (await f.request('GET', path)).status === 200;
const ref = (o: Obj, extra: Record<string, unknown> = {}) => ({ apiVersion: o.apiVersion, kind: o.kind, name: o.metadata.name, uid: o.metadata.uid, ...extra });

async function setup(t: Parameters<typeof startEmulatorFixture>[0]): Promise<EmulatorFixture> {
  const f = await startEmulatorFixture(t);
  ok(await f.kubectl(['apply', '-f', join(FIXTURES, 'recordernode-crd.yaml'), '-f', join(FIXTURES, 'camera-crd.yaml')]), 'crds');
  ok(await f.kubectl(['wait', '--for=condition=Established', 'crd/recordernodes.vigil.io', 'crd/cameras.vigil.io', '--timeout=30s']), 'established');
  ok(await f.kubectl(['create', 'namespace', 'vigil']), 'ns');
  return f;
}

async function create(f: EmulatorFixture, path: string, body: unknown): Promise<Obj> {
  const res = await f.request('POST', path, body);
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body as Obj;
}

let sentinels = 0;

/** Waits until the collector has handled everything before now: a dependent of a missing owner, made now, is collected after it. */
async function collectorCaughtUp(f: EmulatorFixture, namespace = 'vigil'): Promise<void> {
  const name = `sentinel-${++sentinels}`;
  await create(f, `/api/v1/namespaces/${namespace}/configmaps`, { metadata: { name, ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'none', uid: '00000000-0000-0000-0000-0000000000ff' }] } });
  await waitUntil(async () => !(await exists(f, `/api/v1/namespaces/${namespace}/configmaps/${name}`)), 30_000, 'the collector to catch up');
}

const pod = (name: string, owners: unknown[], finalizers?: string[]) => ({ metadata: { name, ownerReferences: owners, ...(finalizers ? { finalizers } : {}) }, spec: { containers: [{ name: 'c', image: 'busybox:1' }] } });

test('foreground deletion keeps the owner until its blocking dependents are gone; background and the last owner rule', async (t) => {
  const f = await setup(t);
  const rn = await create(f, '/apis/vigil.io/v1alpha1/recordernodes', { apiVersion: 'vigil.io/v1alpha1', kind: 'RecorderNode', metadata: { name: 'n1' }, spec: {} });
  // A namespaced dependent of the cluster-scoped owner, held by a finalizer so the owner must wait.
  await create(f, '/api/v1/namespaces/vigil/pods', pod('held', [ref(rn, { controller: true, blockOwnerDeletion: true })], ['vigil.io/test-hold']));
  const cm = await create(f, '/api/v1/namespaces/vigil/configmaps', { metadata: { name: 'other-owner' } });
  await create(f, '/api/v1/namespaces/vigil/pods', pod('two-owners', [ref(rn), ref(cm)]));

  const deleting = await f.request('DELETE', '/apis/vigil.io/v1alpha1/recordernodes/n1', { propagationPolicy: 'Foreground' });
  assert.equal(deleting.status, 200);
  const marked = deleting.body as Obj;
  assert.ok(marked.metadata.deletionTimestamp);
  assert.deepEqual(marked.metadata.finalizers, ['foregroundDeletion']);
  // The held Pod is being deleted (its own deletionTimestamp) but stays; so does its owner.
  await waitUntil(async () => ((await f.request('GET', '/api/v1/namespaces/vigil/pods/held')).body as Obj).metadata.deletionTimestamp !== undefined, 30_000, 'the dependent marked for deletion');
  await collectorCaughtUp(f);
  assert.ok(await exists(f, '/apis/vigil.io/v1alpha1/recordernodes/n1'), 'the owner waits for its blocking dependent');
  // Foreground deletes every dependent, even one with another owner still there.
  await waitUntil(async () => !(await exists(f, '/api/v1/namespaces/vigil/pods/two-owners')), 30_000, 'the dependent with two owners deleted in the foreground');

  ok(await f.kubectl(['-n', 'vigil', 'patch', 'pod', 'held', '--type=json', '-p', '[{"op":"remove","path":"/metadata/finalizers"}]']), 'release the finalizer');
  await waitUntil(async () => !(await exists(f, '/apis/vigil.io/v1alpha1/recordernodes/n1')), 30_000, 'the owner gone once its dependent is');

  // Background: a dependent with another owner still present stays, without the deleted owner's reference mattering.
  const rn2 = await create(f, '/apis/vigil.io/v1alpha1/recordernodes', { apiVersion: 'vigil.io/v1alpha1', kind: 'RecorderNode', metadata: { name: 'n2' }, spec: {} });
  await create(f, '/api/v1/namespaces/vigil/pods', pod('kept', [ref(rn2), ref(cm)]));
  await create(f, '/api/v1/namespaces/vigil/pods', pod('only', [ref(rn2)]));
  ok(await f.kubectl(['delete', 'rn', 'n2']), 'background delete');
  await waitUntil(async () => !(await exists(f, '/api/v1/namespaces/vigil/pods/only')), 30_000, 'the sole dependent collected');
  await collectorCaughtUp(f);
  assert.ok(await exists(f, '/api/v1/namespaces/vigil/pods/kept'), 'a dependent with a live owner stays');
});

test('dangling and cross-namespace owner references are absent (collected, reported); a cluster-scoped dependent of a namespaced kind is never collected', async (t) => {
  const f = await setup(t);
  ok(await f.kubectl(['create', 'namespace', 'elsewhere']), 'ns');
  // Created with an owner that does not exist (a uid nobody has): the collector deletes it.
  await create(f, '/api/v1/namespaces/vigil/pods', pod('dangling', [{ apiVersion: 'vigil.io/v1alpha1', kind: 'RecorderNode', name: 'ghost', uid: '00000000-0000-0000-0000-000000000001' }]));
  await waitUntil(async () => !(await exists(f, '/api/v1/namespaces/vigil/pods/dangling')), 30_000, 'the dependent of a missing owner collected');

  // An owner with the right name but another uid is not the owner either.
  const cm = await create(f, '/api/v1/namespaces/vigil/configmaps', { metadata: { name: 'cfg' } });
  await create(f, '/api/v1/namespaces/vigil/pods', pod('wrong-uid', [{ ...ref(cm), apiVersion: 'v1', kind: 'ConfigMap', uid: '00000000-0000-0000-0000-000000000002' }]));
  await waitUntil(async () => !(await exists(f, '/api/v1/namespaces/vigil/pods/wrong-uid')), 30_000, 'the dependent of a same-named owner collected');

  // A namespaced owner in another namespace counts as absent: the dependent goes, with a Warning Event on it.
  const foreign = await create(f, '/api/v1/namespaces/elsewhere/configmaps', { metadata: { name: 'foreign' } });
  await create(f, '/api/v1/namespaces/vigil/pods', pod('crossing', [{ ...ref(foreign), apiVersion: 'v1', kind: 'ConfigMap' }]));
  await waitUntil(async () => !(await exists(f, '/api/v1/namespaces/vigil/pods/crossing')), 30_000, 'the cross-namespace dependent collected');
  const events = ok(await f.kubectl(['-n', 'vigil', 'get', 'events', '--field-selector', 'reason=OwnerRefInvalidNamespace', '-o', 'jsonpath={range .items[*]}{.involvedObject.name} {.type} {.source.component}: {.message}{"\\n"}{end}']), 'events');
  assert.equal(events, `crossing Warning garbage-collector-controller: ownerRef [v1/ConfigMap, namespace: vigil, name: foreign, uid: ${foreign.metadata.uid}] does not exist in namespace "vigil"\n`);

  // A cluster-scoped dependent naming a namespaced owner (a RecorderNode owned by a Camera): unresolvable, never
  // collected, even once that Camera is deleted; reported in default.
  const camera = await create(f, '/apis/vigil.io/v1alpha1/namespaces/vigil/cameras', { apiVersion: 'vigil.io/v1alpha1', kind: 'Camera', metadata: { name: 'porch' }, spec: { source: 'rtsp://192.0.2.1/s' } });
  await create(f, '/apis/vigil.io/v1alpha1/recordernodes', { apiVersion: 'vigil.io/v1alpha1', kind: 'RecorderNode', metadata: { name: 'n9', ownerReferences: [ref(camera)] }, spec: {} });
  ok(await f.kubectl(['-n', 'vigil', 'delete', 'camera', 'porch']), 'delete the namespaced owner');
  await waitUntil(async () => ok(await f.kubectl(['-n', 'default', 'get', 'events', '--field-selector', 'involvedObject.name=n9,reason=OwnerRefInvalidNamespace', '-o', 'name']), 'events') !== '', 30_000, 'the Warning Event in default');
  await collectorCaughtUp(f);
  assert.ok(await exists(f, '/apis/vigil.io/v1alpha1/recordernodes/n9'), 'the cluster-scoped dependent stays');
});

test('helm uninstall removes the release\'s objects, and the collector removes what they owned, with nothing else running', async (t) => {
  const f = await startEmulatorFixture(t);
  ok(await f.helm(['install', 'demo', join(FIXTURES, 'chart'), '--namespace', 'site', '--create-namespace', '--wait', '--timeout', '60s']), 'install');
  // Objects a controller would make, owned by the release's ConfigMap (as an operator gone with the release would have left them).
  const cm = JSON.parse(ok(await f.kubectl(['-n', 'site', 'get', 'cm', 'demo-config', '-o', 'json']), 'cm')) as Obj;
  await create(f, '/api/v1/namespaces/site/pods', pod('recorder-a', [{ ...ref(cm), apiVersion: 'v1', kind: 'ConfigMap' }]));
  await create(f, '/api/v1/namespaces/site/services', { metadata: { name: 'recorder-a', ownerReferences: [{ ...ref(cm), apiVersion: 'v1', kind: 'ConfigMap' }] }, spec: { ports: [{ port: 9997 }] } });
  ok(await f.helm(['uninstall', 'demo', '--namespace', 'site', '--wait', '--timeout', '60s']), 'uninstall');
  const left = async () => ok(await f.kubectl(['-n', 'site', 'get', 'pods,services,configmaps,deployments,serviceaccounts,roles', '-o', 'name']), 'left').trim().split('\n').filter((n) => n !== '' && n !== 'serviceaccount/default');
  await waitUntil(async () => (await left()).length === 0, 30_000, 'nothing of the release left');
});
