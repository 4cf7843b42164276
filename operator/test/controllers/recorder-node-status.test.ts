// The RecorderNode status controller, one reconcile at a time: the recorder's report copied from its Lease, online
// and lastHeartbeat written when online changes and not at each renewal, and no other writer's status field dropped.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { API_VERSION, type RecorderNode } from '@vigil/crds';
import { Resources, toMicroTime, type KubeObject, type Lease } from '@vigil/kube';
import { reconcileRecorderNodeStatusFor } from '../../src/controllers/recorder-node-status.js';
import { waitUntil } from '@vigil/testing/processes';
import { inProcessOperator } from '../support/in-process.js';

test('a renewal writes nothing; a transition writes online and lastHeartbeat; the report is copied; another manager\'s fields stay', async (t) => {
  const { ctx, admin, signal, until, cluster, templates } = await inProcessOperator(t);
  const ns = cluster.namespace;
  await admin.create<RecorderNode>(Resources.recorderNodes, { apiVersion: API_VERSION, kind: 'RecorderNode', metadata: { name: 'node-a' }, spec: { nodeName: 'node-a', member: true } });
  // Another writer's field (a condition of its own) on the same status.
  await admin.apply(Resources.recorderNodes, { apiVersion: API_VERSION, kind: 'RecorderNode', metadata: { name: 'node-a' }, status: { conditions: [{ type: 'PodAdmitted', status: 'True', reason: 'Admitted' }] } } as KubeObject, { fieldManager: 'someone-else', subresource: 'status' });
  let lease = await admin.create<Lease>(Resources.leases, { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'vigil-node-node-a', namespace: ns, annotations: { 'vigil.io/url': 'http://a:9997', 'vigil.io/version': '2.0.0', 'vigil.io/cameras': '5' } }, spec: { holderIdentity: 'node-a', renewTime: toMicroTime(Date.now()) } });
  const inCache = (l: Lease) => until(() => ctx.caches.leases.get(`${ns}/vigil-node-node-a`)?.metadata.resourceVersion === l.metadata.resourceVersion && ctx.caches.recorderNodes.get('node-a')?.status?.conditions !== undefined, 'the Lease in the cache');
  await inCache(lease);
  const reconcile = reconcileRecorderNodeStatusFor(ctx, templates);
  await reconcile('node-a', signal);
  let rn = (await admin.get<RecorderNode>(Resources.recorderNodes, undefined, 'node-a')) as RecorderNode;
  assert.equal(rn.status?.online, true);
  assert.equal(rn.status?.lastHeartbeat, lease.spec?.renewTime);
  assert.deepEqual([rn.status?.url, rn.status?.version, rn.status?.cameras], ['http://a:9997', '2.0.0', 5]);
  assert.deepEqual(rn.status?.conditions?.map((c) => c.type).sort(), ['Online', 'PodAdmitted', 'Ready', 'Rolled']);

  // Renewals of a node that stays online: no write at all.
  await until(() => ctx.caches.recorderNodes.get('node-a')?.metadata.resourceVersion === rn.metadata.resourceVersion, 'the status in the cache');
  for (let i = 0; i < 3; i++) {
    lease = await admin.replace<Lease>(Resources.leases, { ...lease, spec: { ...lease.spec, renewTime: toMicroTime(Date.now() + i) } });
    await inCache(lease);
    await reconcile('node-a', signal);
  }
  assert.equal((await admin.get<RecorderNode>(Resources.recorderNodes, undefined, 'node-a'))?.metadata.resourceVersion, rn.metadata.resourceVersion);

  // Silent for longer than the rule: online false, lastHeartbeat = the last renewal, written once.
  const last = toMicroTime(Date.now() - 20_000);
  lease = await admin.replace<Lease>(Resources.leases, { ...lease, spec: { ...lease.spec, renewTime: last } });
  await inCache(lease);
  await reconcile('node-a', signal);
  rn = (await admin.get<RecorderNode>(Resources.recorderNodes, undefined, 'node-a')) as RecorderNode;
  assert.deepEqual([rn.status?.online, rn.status?.lastHeartbeat], [false, last]);
  assert.equal(rn.status?.conditions?.find((c) => c.type === 'Online')?.reason, 'HeartbeatSilent');
  assert.ok(rn.status?.conditions?.some((c) => c.type === 'PodAdmitted'), 'the other writer\'s condition stays');
});

test('the certificate a node reports serving: CertificateValid True, then False CertificateExpiring (Warning Event) a week before its end, CertificateExpired after it, CertificateRenewed when renewed', async (t) => {
  const { ctx, admin, signal, until, cluster, templates } = await inProcessOperator(t);
  const ns = cluster.namespace;
  const DAY = 86_400_000;
  await admin.create<RecorderNode>(Resources.recorderNodes, { apiVersion: API_VERSION, kind: 'RecorderNode', metadata: { name: 'node-a' }, spec: { nodeName: 'node-a', member: true } });
  let lease = await admin.create<Lease>(Resources.leases, { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'vigil-node-node-a', namespace: ns, annotations: { 'vigil.io/url': 'https://a:9997' } }, spec: { holderIdentity: 'node-a', renewTime: toMicroTime(Date.now()) } });
  const reconcile = reconcileRecorderNodeStatusFor(ctx, templates);
  const serving = async (notAfter: number) => {
    lease = await admin.replace<Lease>(Resources.leases, { ...lease, metadata: { ...lease.metadata, annotations: { ...lease.metadata.annotations, 'vigil.io/certificate-not-after': new Date(notAfter).toISOString(), 'vigil.io/certificate-expiring-from': new Date(notAfter - 7 * DAY).toISOString() } }, spec: { ...lease.spec, renewTime: toMicroTime(Date.now()) } });
    await until(() => ctx.caches.leases.get(`${ns}/vigil-node-node-a`)?.metadata.resourceVersion === lease.metadata.resourceVersion && ctx.caches.recorderNodes.get('node-a') !== undefined, 'the Lease in the cache');
    await reconcile('node-a', signal);
    const rn = (await admin.get<RecorderNode>(Resources.recorderNodes, undefined, 'node-a')) as RecorderNode;
    await until(() => ctx.caches.recorderNodes.get('node-a')?.metadata.resourceVersion === rn.metadata.resourceVersion, 'the status in the cache');
    const c = rn.status?.conditions?.find((x) => x.type === 'CertificateValid');
    return [c?.status, c?.reason];
  };
  const events = async (reason: string) => (await cluster.events()).filter((e) => e.reason === reason && e.involvedObject.name === 'node-a');

  assert.deepEqual(await serving(Date.now() + 30 * DAY), ['True', 'CertificateValid']);
  assert.deepEqual(await serving(Date.now() + 3 * DAY), ['False', 'CertificateExpiring']);
  await waitUntil(async () => (await events('CertificateExpiring')).length === 1, 10_000, 'a CertificateExpiring Event');
  assert.match((await events('CertificateExpiring'))[0]?.message ?? '', /node node-a: the certificate its API serves ends at .* and has not been renewed/);
  assert.deepEqual(await serving(Date.now() + 3 * DAY - 60_000), ['False', 'CertificateExpiring'], 'still expiring: no new Event');
  assert.deepEqual(await serving(Date.now() - 1000), ['False', 'CertificateExpired']);
  assert.deepEqual(await serving(Date.now() + 90 * DAY), ['True', 'CertificateValid']);
  await waitUntil(async () => (await events('CertificateExpired')).length === 1 && (await events('CertificateRenewed')).length === 1, 10_000, 'CertificateExpired and CertificateRenewed Events');
  assert.equal((await events('CertificateExpiring')).length, 1, 'one Event for the expiring certificate, not one per heartbeat');
});
