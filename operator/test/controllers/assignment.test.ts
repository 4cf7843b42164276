// The assignment controller, one reconcile at a time: quorum counts the selected Nodes still without a RecorderNode
// (the first recorder up is never "1 of 1"); it applies only its own Camera status fields, so a recorder's report
// stays, and a field it stops applying (handoverFrom after a completed move) goes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { API_VERSION, type Camera, type RecorderNode } from '@vigil/crds';
import { Resources, toMicroTime, type KubeObject, type Lease } from '@vigil/kube';
import { reconcileAssignmentFor } from '../../src/controllers/assignment.js';
import { inProcessOperator } from '../support/in-process.js';

test('no quorum while selected Nodes await their RecorderNode; own fields only; handoverFrom cleared when the move completes', async (t) => {
  const { ctx, credentials, admin, signal, until, cluster } = await inProcessOperator(t, { nodeSelector: 'vigil.io/recorder=true' });
  const ns = cluster.namespace;
  for (const n of ['node-a', 'node-b', 'node-c']) await cluster.addNode(n, { 'vigil.io/recorder': 'true' });
  await cluster.addNode('db-1');
  const rn = (name: string) => admin.create<RecorderNode>(Resources.recorderNodes, { apiVersion: API_VERSION, kind: 'RecorderNode', metadata: { name }, spec: { nodeName: name, member: true } });
  const heartbeat = (name: string) => admin.create<Lease>(Resources.leases, { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: `vigil-node-${name}`, namespace: ns }, spec: { holderIdentity: name, renewTime: toMicroTime(Date.now()) } });
  await rn('node-a');
  await heartbeat('node-a');
  await admin.create(Resources.cameras, { apiVersion: API_VERSION, kind: 'Camera', metadata: { name: 'door', namespace: ns }, spec: { source: 'rtsp://192.0.2.1/door' } } as KubeObject);
  await until(() => ctx.caches.nodes.list().length === 4 && ctx.caches.cameras.list().length === 1 && ctx.caches.leases.list().length === 1 && ctx.caches.recorderNodes.list().length === 1, 'the caches');
  const reconcile = reconcileAssignmentFor(ctx, credentials);
  const camera = async () => (await admin.get<Camera>(Resources.cameras, ns, 'door')) as Camera;
  await reconcile('cluster', signal);
  let cam = await camera();
  const assigned = cam.status?.conditions?.find((c) => c.type === 'Assigned');
  assert.deepEqual([cam.status?.phase, cam.status?.node, assigned?.reason], ['Pending', undefined, 'NoQuorum']);
  assert.match(assigned?.message ?? '', /1 of 3 members online/, 'node-b and node-c count although their RecorderNodes do not exist yet; db-1 does not');

  // node-b joins: quorum; the camera goes to a member.
  await rn('node-b');
  await heartbeat('node-b');
  await until(() => ctx.caches.recorderNodes.list().length === 2 && ctx.caches.leases.list().length === 2, 'node-b in the caches');
  await reconcile('cluster', signal);
  cam = await camera();
  assert.ok(['node-a', 'node-b'].includes(cam.status?.node ?? ''), JSON.stringify(cam.status));
  const owner = cam.status?.node as string;
  const other = owner === 'node-a' ? 'node-b' : 'node-a';

  // A planned move is under way (as the operator set it) and the new node reports Recording (its own fields).
  const status = (manager: string, s: Record<string, unknown>) => admin.apply(Resources.cameras, { apiVersion: API_VERSION, kind: 'Camera', metadata: { name: 'door', namespace: ns }, status: s } as KubeObject, { fieldManager: manager, force: true, subresource: 'status' });
  await status('vigil-operator', { ...cam.status, node: other, handoverFrom: owner, conditions: cam.status?.conditions?.filter((c) => c.type === 'Assigned') });
  const reported = await status(`vigil-recorder-${other}`, { conditions: [{ type: 'Recording', status: 'True', reason: 'SegmentWritten' }], recordingNode: other });
  await until(() => ctx.caches.cameras.get(`${ns}/door`)?.metadata.resourceVersion === reported.metadata.resourceVersion, 'the report in the cache');
  await reconcile('cluster', signal);
  cam = await camera();
  assert.deepEqual([cam.status?.node, cam.status?.handoverFrom, cam.status?.phase, cam.status?.recordingNode], [other, undefined, 'Recording', other]);
  assert.deepEqual(cam.status?.conditions?.map((c) => c.type).sort(), ['Assigned', 'Recording'], 'the recorder\'s condition kept');
  const managers = (cam.metadata as { managedFields?: Array<{ manager: string; operation: string }> }).managedFields?.filter((m) => m.operation === 'Apply').map((m) => m.manager).sort();
  assert.deepEqual(managers, ['vigil-operator', `vigil-recorder-${other}`]);
});
