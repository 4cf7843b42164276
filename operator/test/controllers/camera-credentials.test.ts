// Each node's camera credentials Secret, one reconcile at a time against kube-apiserver as the operator's ServiceAccount:
// a node's Secret holds exactly the cameras it records or hands over; the Secret of the node a status gives a camera is
// written before that status (its resourceVersion is older); after a handover or a failover the node that no longer
// records the camera loses it; a sync while a move is being written keeps it; the shared Secret of older versions goes
// once no older recorder Pod runs.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { API_VERSION, TEMPLATE_HASH_ANNOTATION, type Camera, type RecorderNode } from '@vigil/crds';
import { Resources, toMicroTime, type KubeObject, type Lease, type Pod, type Secret } from '@vigil/kube';
import { reconcileAssignmentFor } from '../../src/controllers/assignment.js';
import { inProcessOperator } from '../support/in-process.js';

const NODES = ['node-a', 'node-b', 'node-c'];

test('each node\'s Secret holds its cameras only, written before the status that gives it one; moves take them off the old node', async (t) => {
  const { ctx, credentials, admin, signal, until, cluster, templates } = await inProcessOperator(t);
  const ns = cluster.namespace;
  const leases = new Map<string, Lease>();
  for (const name of NODES) {
    await admin.create<RecorderNode>(Resources.recorderNodes, { apiVersion: API_VERSION, kind: 'RecorderNode', metadata: { name }, spec: { nodeName: name, member: true } });
    leases.set(name, await admin.create<Lease>(Resources.leases, { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: `vigil-node-${name}`, namespace: ns }, spec: { holderIdentity: name, renewTime: toMicroTime(Date.now()) } }));
  }
  await admin.create<Secret>(Resources.secrets, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'door-login', namespace: ns }, type: 'Opaque', data: { username: btoa('admin'), password: btoa('Door-Pw-1') } } as Secret);
  for (const [name, ref] of [['door', { credentialsSecretRef: { name: 'door-login' } }], ['open', {}]] as const) {
    await admin.create(Resources.cameras, { apiVersion: API_VERSION, kind: 'Camera', metadata: { name, namespace: ns }, spec: { source: `rtsp://192.0.2.1/${name}`, ...ref } } as KubeObject);
  }
  await until(() => ctx.caches.recorderNodes.list().length === 3 && ctx.caches.leases.list().length === 3 && ctx.caches.cameras.list().length === 2 && ctx.caches.secrets.get(`${ns}/door-login`) !== undefined, 'the caches');

  const secretOf = async (node: string) => (await admin.get<Secret>(Resources.secrets, ns, `vigil-camera-credentials-${node}`)) as Secret;
  const holders = async () => {
    const out: string[] = [];
    for (const node of NODES) if ((await secretOf(node)).data?.['door.password'] !== undefined) out.push(node);
    return out;
  };
  const door = async () => (await admin.get<Camera>(Resources.cameras, ns, 'door')) as Camera;
  /** The node's Secret has the camera and was written before the Camera status that gives it to the node. */
  const writtenBefore = async (node: string, cam: Camera) => {
    const secret = await secretOf(node);
    assert.equal(atob(secret.data?.['door.password'] ?? ''), 'Door-Pw-1', `${node} has the credentials`);
    assert.equal(atob(secret.data?.['door.username'] ?? ''), 'admin');
    assert.ok(Number(secret.metadata.resourceVersion) < Number(cam.metadata.resourceVersion), `${node}'s Secret (${secret.metadata.resourceVersion}) written before the status (${cam.metadata.resourceVersion})`);
  };

  // Every node gets its Secret, owned by its RecorderNode; nothing is assigned yet, so they are empty.
  await credentials.sync(signal);
  for (const node of NODES) {
    const secret = await secretOf(node);
    assert.deepEqual([secret.data ?? {}, secret.metadata.ownerReferences?.map((o) => `${o.kind}/${o.name}`)], [{}, [`RecorderNode/${node}`]]);
  }

  const assign = reconcileAssignmentFor(ctx, credentials);
  await assign('cluster', signal);
  let cam = await door();
  const first = cam.status?.node ?? '';
  assert.ok(NODES.includes(first), JSON.stringify(cam.status));
  await writtenBefore(first, cam);
  assert.deepEqual(await holders(), [first], 'only the node that records it');
  assert.equal((await admin.get<Camera>(Resources.cameras, ns, 'open'))?.status?.node !== undefined, true);
  for (const node of NODES) assert.equal((await secretOf(node)).data?.['open.username'], undefined, 'a camera without credentials is in no Secret');

  // A planned move (the node leaves the vote): both sides hold the credentials until the new node records.
  await admin.mergePatch(Resources.recorderNodes, undefined, first, { spec: { member: false } });
  await until(() => ctx.caches.recorderNodes.get(first)?.spec.member === false, 'member false in the cache');
  await assign('cluster', signal);
  cam = await door();
  const second = cam.status?.node ?? '';
  assert.deepEqual([cam.status?.handoverFrom, second !== first], [first, true], JSON.stringify(cam.status));
  await writtenBefore(second, cam);
  await credentials.sync(signal);
  assert.deepEqual((await holders()).sort(), [first, second].sort(), 'the old node records until the new one reports Recording');
  const reported = await admin.apply(Resources.cameras, { apiVersion: API_VERSION, kind: 'Camera', metadata: { name: 'door', namespace: ns }, status: { conditions: [{ type: 'Recording', status: 'True', reason: 'SegmentWritten' }], recordingNode: second } } as KubeObject, { fieldManager: `vigil-recorder-${second}`, force: true, subresource: 'status' });
  await until(() => ctx.caches.cameras.get(`${ns}/door`)?.metadata.resourceVersion === reported.metadata.resourceVersion, 'the report in the cache');
  await assign('cluster', signal);
  assert.equal((await door()).status?.handoverFrom, undefined, 'the handover completed');
  await credentials.sync(signal);
  assert.deepEqual(await holders(), [second], 'the old node no longer has them');

  // Failover: the recording node goes silent; the new node has the credentials before its status, the silent one loses them.
  await admin.mergePatch(Resources.recorderNodes, undefined, first, { spec: { member: true } });
  const lease = (await admin.get<Lease>(Resources.leases, ns, `vigil-node-${second}`)) as Lease;
  const silent = await admin.replace<Lease>(Resources.leases, { ...lease, spec: { ...lease.spec, renewTime: toMicroTime(Date.now() - 20_000) } });
  await until(() => ctx.caches.recorderNodes.get(first)?.spec.member === true && ctx.caches.leases.get(`${ns}/vigil-node-${second}`)?.metadata.resourceVersion === silent.metadata.resourceVersion, 'the silence in the cache');
  await assign('cluster', signal);
  cam = await door();
  const third = cam.status?.node ?? '';
  assert.ok(third !== second && NODES.includes(third), JSON.stringify(cam.status));
  await writtenBefore(third, cam);
  await credentials.sync(signal);
  assert.deepEqual(await holders(), [third], 'the silent node lost them');

  // A sync while a move is being written (its status not written yet) keeps the credentials on the node it goes to.
  const next = NODES.find((n) => n !== third) ?? '';
  await credentials.whileAssigning(new Map([[`${ns}/door`, [next]]]), signal, async () => {
    await credentials.sync(signal);
    assert.deepEqual((await holders()).sort(), [next, third].sort());
  });
  await credentials.sync(signal);
  assert.deepEqual(await holders(), [third], 'released: the statuses rule again');

  // The Secret all recorders shared before: kept while a recorder Pod of the older template runs, deleted after.
  await admin.create<Secret>(Resources.secrets, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'vigil-camera-credentials', namespace: ns, labels: { 'app.kubernetes.io/managed-by': 'vigil-operator' } }, type: 'Opaque', data: {} } as Secret);
  const pod = templates.podFor(ctx.caches.recorderNodes.get(third) as RecorderNode);
  // kube-apiserver admits a Pod only with its ServiceAccount (the identity controller, not run here, makes it).
  await admin.create(Resources.serviceAccounts, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: pod.spec?.serviceAccountName ?? '', namespace: ns } });
  const older: Pod = { ...pod, metadata: { ...pod.metadata, ownerReferences: [], annotations: { ...pod.metadata.annotations, [TEMPLATE_HASH_ANNOTATION]: 'older' } } };
  const created = await admin.create<Pod>(Resources.pods, older);
  await until(() => ctx.caches.pods.get(`${ns}/${created.metadata.name}`) !== undefined && ctx.caches.secrets.get(`${ns}/vigil-camera-credentials`) !== undefined, 'the older Pod and the shared Secret in the caches');
  assert.ok((await credentials.sync(signal))?.requeueAfterMs, 'looks again later');
  assert.ok(await admin.get(Resources.secrets, ns, 'vigil-camera-credentials'), 'kept while an older recorder runs');
  await admin.delete(Resources.pods, ns, created.metadata.name ?? '', { gracePeriodSeconds: 0 });
  await until(() => ctx.caches.pods.get(`${ns}/${created.metadata.name}`) === undefined, 'the Pod gone from the cache');
  assert.equal(await credentials.sync(signal), undefined);
  assert.equal(await admin.get(Resources.secrets, ns, 'vigil-camera-credentials'), undefined, 'deleted once every recorder runs the current template');
});
