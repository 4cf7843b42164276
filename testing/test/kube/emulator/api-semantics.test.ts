// REST semantics clients rely on: selectors, pagination, generation, conflicts, finalizers, cascading and namespace deletion, Tables, discovery, OpenAPI.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { waitUntil } from '../../../src/processes.js';
import { FIXTURES, ok, startEmulatorFixture, type EmulatorFixture } from './emulator-fixture.js';

type Obj = { metadata: { name: string; uid: string; resourceVersion: string; generation?: number; deletionTimestamp?: string; finalizers?: string[]; ownerReferences?: unknown[] }; [k: string]: unknown };
type List = { items: Obj[]; metadata: { resourceVersion: string; continue?: string; remainingItemCount?: number } };

async function installCrds(f: EmulatorFixture): Promise<void> {
  ok(await f.kubectl(['apply', '-f', join(FIXTURES, 'camera-crd.yaml'), '-f', join(FIXTURES, 'recordernode-crd.yaml')]), 'crds');
  ok(await f.kubectl(['wait', '--for=condition=Established', 'crd/cameras.vigil.io', 'crd/recordernodes.vigil.io', '--timeout=30s']), 'established');
}

const names = (l: List): string[] => l.items.map((o) => o.metadata.name).sort();

test('label and field selectors, pagination with continue, and the real 400 for an unsupported field', async (t) => {
  const f = await startEmulatorFixture(t);
  const pods = '/api/v1/namespaces/default/pods';
  const pod = (name: string, labels: Record<string, string>, nodeName?: string) => ({ metadata: { name, labels }, spec: { ...(nodeName ? { nodeName } : {}), containers: [{ name: 'c', image: 'busybox' }] } });
  for (const p of [pod('a', { app: 'rec', tier: 'x' }, 'n1'), pod('b', { app: 'rec', tier: 'y' }, 'n2'), pod('c', { app: 'op' }), pod('d', { app: 'op', tier: 'x' }, 'n1'), pod('e', {})]) {
    assert.equal((await f.request('POST', pods, p)).status, 201);
  }
  const sel = async (q: string) => names((await f.request('GET', `${pods}?${q}`)).body as List);
  assert.deepEqual(await sel('labelSelector=app%3Drec'), ['a', 'b']);
  assert.deepEqual(await sel('labelSelector=app!%3Drec'), ['c', 'd', 'e']);
  assert.deepEqual(await sel('labelSelector=tier%20in%20(x,y),app'), ['a', 'b', 'd']);
  assert.deepEqual(await sel('labelSelector=app%20notin%20(rec),tier'), ['d']);
  assert.deepEqual(await sel('labelSelector=!tier'), ['c', 'e']);
  assert.deepEqual(await sel('fieldSelector=spec.nodeName%3Dn1'), ['a', 'd']);
  assert.deepEqual(await sel('fieldSelector=metadata.name%3Db'), ['b']);
  assert.deepEqual(await sel('fieldSelector=spec.nodeName!%3Dn1,metadata.namespace%3Ddefault&labelSelector=app'), ['b', 'c']);
  const bad = await f.request('GET', `${pods}?fieldSelector=spec.bogus%3Dx`);
  assert.equal(bad.status, 400);
  assert.equal((bad.body as { message: string }).message, 'field label not supported: spec.bogus');

  const seen: string[] = [];
  let next: string | undefined;
  let pages = 0;
  do {
    const page = (await f.request('GET', `${pods}?limit=2${next ? `&continue=${encodeURIComponent(next)}` : ''}`)).body as List;
    seen.push(...page.items.map((o) => o.metadata.name));
    if (page.metadata.continue) assert.equal(page.metadata.remainingItemCount, 5 - seen.length);
    next = page.metadata.continue;
    pages++;
  } while (next);
  assert.deepEqual(seen, ['a', 'b', 'c', 'd', 'e']);
  assert.equal(pages, 3);

  // Event field selectors, as kubectl describe sends them.
  await f.request('POST', '/api/v1/namespaces/default/events', { metadata: { name: 'ev1' }, involvedObject: { kind: 'Pod', name: 'a', namespace: 'default' }, reason: 'Started', message: 'm' });
  await f.request('POST', '/api/v1/namespaces/default/events', { metadata: { name: 'ev2' }, involvedObject: { kind: 'Pod', name: 'b', namespace: 'default' }, reason: 'Started', message: 'm' });
  const events = (await f.request('GET', '/api/v1/namespaces/default/events?fieldSelector=involvedObject.name%3Da,involvedObject.kind%3DPod')).body as List;
  assert.deepEqual(names(events), ['ev1']);
});

test('generation follows spec only, stale writes conflict, finalizers hold deletion, and status stays out of the main resource', async (t) => {
  const f = await startEmulatorFixture(t);
  await installCrds(f);
  const path = '/apis/vigil.io/v1alpha1/namespaces/default/cameras';
  const created = (await f.request('POST', path, { apiVersion: 'vigil.io/v1alpha1', kind: 'Camera', metadata: { name: 'cam1', finalizers: ['vigil.io/recording'] }, spec: { source: 'rtsp://x/' } })).body as Obj;
  assert.equal(created.metadata.generation, 1);
  const merge = (name: string, body: unknown, sub = '') => f.request('PATCH', `${path}/${name}${sub}`, body, { contentType: 'application/merge-patch+json' });
  assert.equal(((await merge('cam1', { metadata: { labels: { a: 'b' } } })).body as Obj).metadata.generation, 1);
  assert.equal(((await merge('cam1', { status: { phase: 'Assigned' } }, '/status')).body as Obj).metadata.generation, 1);
  const specChanged = (await merge('cam1', { spec: { ptz: true } })).body as Obj;
  assert.equal(specChanged.metadata.generation, 2);
  assert.deepEqual(specChanged.status, { phase: 'Assigned' });
  assert.deepEqual(((await merge('cam1', { status: { phase: 'Failed' } })).body as Obj).status, { phase: 'Assigned' }, 'status ignored on the main resource');

  const stale = await f.request('PUT', `${path}/cam1`, { ...created, spec: { source: 'rtsp://y/' } });
  assert.equal(stale.status, 409);
  assert.equal((stale.body as { message: string }).message, 'Operation cannot be fulfilled on cameras.vigil.io "cam1": the object has been modified; please apply your changes to the latest version and try again');
  const jsonPatch = await f.request('PATCH', `${path}/cam1`, [{ op: 'replace', path: '/spec/source', value: 'rtsp://z/' }, { op: 'add', path: '/metadata/labels/c', value: 'd' }], { contentType: 'application/json-patch+json' });
  assert.equal((jsonPatch.body as { spec: { source: string } }).spec.source, 'rtsp://z/');
  const smp = await f.request('PATCH', `${path}/cam1`, { spec: {} }, { contentType: 'application/strategic-merge-patch+json' });
  assert.equal(smp.status, 415, 'custom resources take no strategic merge patch, as on a real server');

  const deleting = await f.request('DELETE', `${path}/cam1`);
  assert.ok(deleting.status === 200 || deleting.status === 202);
  const held = (await f.request('GET', `${path}/cam1`)).body as Obj;
  assert.ok(held.metadata.deletionTimestamp, 'a finalizer keeps the object, marked for deletion');
  await merge('cam1', { metadata: { finalizers: null } });
  assert.equal((await f.request('GET', `${path}/cam1`)).status, 404);
  assert.equal(((await f.request('GET', `${path}/cam1`)).body as { message: string }).message, 'cameras.vigil.io "cam1" not found');
});

test('deleting a cluster-scoped owner removes its Pods (background), Orphan keeps them, a namespace is emptied before it goes', async (t) => {
  const f = await startEmulatorFixture(t);
  await installCrds(f);
  const rn = async (name: string) => (await f.request('POST', '/apis/vigil.io/v1alpha1/recordernodes', { apiVersion: 'vigil.io/v1alpha1', kind: 'RecorderNode', metadata: { name }, spec: { nodeName: name } })).body as Obj;
  const owned = (owner: Obj, name: string, ns = 'default') => f.request('POST', `/api/v1/namespaces/${ns}/pods`, {
    metadata: { name, ownerReferences: [{ apiVersion: 'vigil.io/v1alpha1', kind: 'RecorderNode', name: owner.metadata.name, uid: owner.metadata.uid, controller: true, blockOwnerDeletion: true }] },
    spec: { nodeName: owner.metadata.name, containers: [{ name: 'recorder', image: 'vigil/recorder:1' }] },
  });
  const n1 = await rn('n1');
  const n2 = await rn('n2');
  assert.equal((await owned(n1, 'vigil-recorder-n1')).status, 201);
  assert.equal((await owned(n2, 'vigil-recorder-n2')).status, 201);
  assert.match(ok(await f.kubectl(['get', 'rn']), 'get rn'), /^NAME\s+ONLINE\s+MEMBER\s+CAMERAS\s+VERSION\s+AGE\nn1\s+true\s+\S+\nn2\s+true\s+\S+\n$/);

  ok(await f.kubectl(['delete', 'rn', 'n1']), 'delete n1');
  await waitUntil(async () => (await f.request('GET', '/api/v1/namespaces/default/pods/vigil-recorder-n1')).status === 404, 30_000, 'the owned Pod to be collected');
  ok(await f.kubectl(['delete', 'rn', 'n2', '--cascade=orphan']), 'delete n2 orphaning');
  await waitUntil(async () => (await f.request('GET', '/apis/vigil.io/v1alpha1/recordernodes/n2')).status === 404, 30_000, 'n2 to go');
  const orphan = (await f.request('GET', '/api/v1/namespaces/default/pods/vigil-recorder-n2')).body as Obj;
  assert.equal(orphan.metadata.ownerReferences, undefined);

  ok(await f.kubectl(['create', 'namespace', 'doomed']), 'create ns');
  await f.request('POST', '/api/v1/namespaces/doomed/configmaps', { metadata: { name: 'c1' } });
  await f.request('POST', '/apis/vigil.io/v1alpha1/namespaces/doomed/cameras', { apiVersion: 'vigil.io/v1alpha1', kind: 'Camera', metadata: { name: 'cam' }, spec: { source: 'rtsp://x/' } });
  ok(await f.kubectl(['delete', 'namespace', 'doomed', '--timeout=60s']), 'delete ns (kubectl waits for it to go)');
  assert.equal((await f.request('GET', '/api/v1/namespaces/doomed')).status, 404);
  assert.equal(((await f.request('GET', '/apis/vigil.io/v1alpha1/cameras')).body as List).items.length, 0);
  const late = await f.request('POST', '/api/v1/namespaces/doomed/configmaps', { metadata: { name: 'c2' } });
  assert.equal(late.status, 404);
  assert.equal((late.body as { message: string }).message, 'namespaces "doomed" not found');
});

test('discovery serves a CRD from its creation until its deletion; OpenAPI v3 carries the PATCH fieldValidation kubectl looks for', async (t) => {
  const f = await startEmulatorFixture(t);
  assert.equal((await f.request('GET', '/apis/vigil.io/v1alpha1')).status, 404);
  await installCrds(f);
  const resources = (await f.request('GET', '/apis/vigil.io/v1alpha1')).body as { resources: Array<{ name: string; namespaced: boolean; kind: string; shortNames?: string[]; verbs: string[] }> };
  const byName = new Map(resources.resources.map((r) => [r.name, r]));
  assert.deepEqual(byName.get('cameras')?.shortNames, ['cam']);
  assert.equal(byName.get('cameras')?.namespaced, true);
  assert.equal(byName.get('recordernodes')?.namespaced, false);
  assert.deepEqual(byName.get('cameras/status')?.verbs, ['get', 'patch', 'update']);
  const groups = (await f.request('GET', '/apis')).body as { groups: Array<{ name: string; preferredVersion: { groupVersion: string } }> };
  assert.equal(groups.groups.find((g) => g.name === 'vigil.io')?.preferredVersion.groupVersion, 'vigil.io/v1alpha1');

  const index = (await f.request('GET', '/openapi/v3')).body as { paths: Record<string, { serverRelativeURL: string }> };
  const url = index.paths['apis/vigil.io/v1alpha1']?.serverRelativeURL;
  assert.match(url ?? '', /^\/openapi\/v3\/apis\/vigil.io\/v1alpha1\?hash=[0-9A-F]+$/);
  const doc = (await f.request('GET', url as string)).body as { paths: Record<string, { patch?: { 'x-kubernetes-group-version-kind': unknown; parameters: Array<{ name: string; in: string }> } }> };
  const patch = doc.paths['/apis/vigil.io/v1alpha1/namespaces/{namespace}/cameras/{name}']?.patch;
  assert.deepEqual(patch?.['x-kubernetes-group-version-kind'], { group: 'vigil.io', version: 'v1alpha1', kind: 'Camera' });
  assert.ok(patch?.parameters.some((p) => p.name === 'fieldValidation' && p.in === 'query'));
  assert.ok(index.paths['apis/apps/v1'] && index.paths['api/v1']);
  assert.match(ok(await f.kubectl(['explain', 'cameras.spec.record']), 'explain'), /segmentSeconds\s+<integer>/);

  ok(await f.kubectl(['delete', 'crd', 'cameras.vigil.io']), 'delete crd');
  const after = (await f.request('GET', '/apis/vigil.io/v1alpha1')).body as { resources: Array<{ name: string }> };
  assert.deepEqual(after.resources.map((r) => r.name).sort(), ['recordernodes', 'recordernodes/status']);
  const gone = await f.kubectl(['get', 'cameras']);
  assert.equal(gone.code, 1);
  // Depending on kubectl's discovery cache: the type is unknown, or its (cached) path answers the real server's 404.
  assert.match(gone.stderr, /the server doesn't have a resource type "cameras"|Unable to list "vigil.io\/v1alpha1, Resource=cameras": the server could not find the requested resource/);
});

test('events.k8s.io/v1 Events are the core/v1 Events seen differently: written with one API, read and described with the other', async (t) => {
  const f = await startEmulatorFixture(t);
  await installCrds(f);
  const cam = (await f.request('POST', '/apis/vigil.io/v1alpha1/namespaces/default/cameras', { apiVersion: 'vigil.io/v1alpha1', kind: 'Camera', metadata: { name: 'porch' }, spec: { source: 'rtsp://x/' } })).body as Obj;
  const created = await f.request('POST', '/apis/events.k8s.io/v1/namespaces/default/events', {
    apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { generateName: 'porch.' },
    regarding: { apiVersion: 'vigil.io/v1alpha1', kind: 'Camera', name: 'porch', namespace: 'default', uid: cam.metadata.uid },
    reason: 'Moved', note: 'camera porch moved from n1 to n2', type: 'Normal', action: 'Assign',
    reportingController: 'vigil.io/operator', reportingInstance: 'op-1', eventTime: new Date().toISOString(),
  });
  assert.equal(created.status, 201);
  const name = (created.body as Obj).metadata.name;
  assert.match(name, /^porch\.[a-z0-9]{5}$/);
  const core = (await f.request('GET', `/api/v1/namespaces/default/events/${name}`)).body as { involvedObject: { name: string }; message: string; reportingComponent: string };
  assert.deepEqual([core.involvedObject.name, core.message, core.reportingComponent], ['porch', 'camera porch moved from n1 to n2', 'vigil.io/operator']);
  const viaV1 = (await f.request('GET', '/apis/events.k8s.io/v1/namespaces/default/events')).body as { items: Array<{ note: string; regarding: { name: string } }> };
  assert.deepEqual(viaV1.items.map((e) => `${e.regarding.name}: ${e.note}`), ['porch: camera porch moved from n1 to n2']);
  assert.match(ok(await f.kubectl(['describe', 'camera', 'porch']), 'describe'), /Normal\s+Moved\s+\S+\s+vigil.io\/operator\s+camera porch moved from n1 to n2/);
});
