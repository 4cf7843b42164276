// The recorder-identity controller, one reconcile at a time against kube-apiserver as the operator's ServiceAccount:
// a RecorderNode gets its ServiceAccount, own-Lease Role, the bindings and an empty heartbeat Lease; what drifted is
// put right; the Lease, once there, is the recorder's and never rewritten.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { API_VERSION, type RecorderNode } from '@vigil/crds';
import { Resources, toMicroTime, type Binding, type Lease, type Role, type ServiceAccount } from '@vigil/kube';
import { auditedWrites } from '@vigil/testing/kube/control-plane/audit-log';
import { ownRules } from '@vigil/testing/kube/recorder-identity';
import { RECORDER_CLUSTER_ROLE, RECORDER_ROLE } from '@vigil/testing/kube/test-cluster';
import { reconcileRecorderIdentityFor } from '../../src/controllers/recorder-identity.js';
import { inProcessOperator } from '../support/in-process.js';

test('a RecorderNode gets its own identity; drift is put right; the heartbeat Lease is made once and left to the recorder', async (t) => {
  const { ctx, admin, signal, until, cluster } = await inProcessOperator(t);
  const ns = cluster.namespace;
  const rn = await admin.create<RecorderNode>(Resources.recorderNodes, { apiVersion: API_VERSION, kind: 'RecorderNode', metadata: { name: 'node-a' }, spec: { nodeName: 'node-a', member: true } });
  await until(() => ctx.caches.recorderNodes.get('node-a') !== undefined, 'the RecorderNode in the cache');
  const reconcile = reconcileRecorderIdentityFor(ctx);
  await reconcile('node-a', signal);

  const sa = await admin.get<ServiceAccount>(Resources.serviceAccounts, ns, 'vigil-recorder-node-a');
  assert.equal(sa?.metadata.ownerReferences?.[0]?.uid, rn.metadata.uid, 'owned by the RecorderNode: deleting it deletes the identity');
  const role = await admin.get<Role>(Resources.roles, ns, 'vigil-recorder-node-a');
  assert.deepEqual(role?.rules, ownRules('node-a'));
  // As kube-apiserver stores it: a ServiceAccount subject's empty apiGroup is not kept.
  const subjects = [{ kind: 'ServiceAccount', name: 'vigil-recorder-node-a', namespace: ns }];
  const own = await admin.get<Binding>(Resources.roleBindings, ns, 'vigil-recorder-node-a');
  assert.deepEqual([own?.roleRef.name, own?.subjects], ['vigil-recorder-node-a', subjects]);
  const shared = await admin.get<Binding>(Resources.roleBindings, ns, 'vigil-recorder-node-a-shared');
  assert.deepEqual([shared?.roleRef, shared?.subjects], [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: RECORDER_ROLE }, subjects]);
  const crb = await admin.get<Binding>(Resources.clusterRoleBindings, undefined, RECORDER_CLUSTER_ROLE);
  assert.deepEqual([crb?.roleRef.kind, crb?.roleRef.name, crb?.subjects], ['ClusterRole', RECORDER_CLUSTER_ROLE, subjects], 'its ServiceAccount a subject of the chart\'s recorder binding');
  const lease = await admin.get<Lease>(Resources.leases, ns, 'vigil-node-node-a');
  assert.deepEqual([lease?.spec?.holderIdentity, lease?.spec?.renewTime ?? undefined], ['node-a', undefined], 'empty: offline until the recorder renews it');

  // Someone widens the node's Role and points its binding elsewhere: the next pass puts both right.
  await admin.replace(Resources.roles, { ...role, rules: [{ apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['delete'] }] } as Role);
  await admin.delete(Resources.roleBindings, ns, 'vigil-recorder-node-a-shared');
  await admin.create(Resources.roleBindings, { ...shared, metadata: { name: 'vigil-recorder-node-a-shared', namespace: ns, labels: shared?.metadata.labels }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'something-else' } } as Binding);
  // The recorder renews its Lease.
  const renewed = await admin.replace(Resources.leases, { ...lease, spec: { ...lease?.spec, renewTime: toMicroTime(Date.now()) } } as Lease);
  await until(() => ctx.caches.roles.get(`${ns}/vigil-recorder-node-a`)?.rules?.[0]?.verbs.length === 1 && ctx.caches.roleBindings.get(`${ns}/vigil-recorder-node-a-shared`)?.roleRef.name === 'something-else'
    && ctx.caches.leases.get(`${ns}/vigil-node-node-a`)?.metadata.resourceVersion === renewed.metadata.resourceVersion, 'the drift in the caches');
  await reconcile('node-a', signal);
  assert.deepEqual((await admin.get<Role>(Resources.roles, ns, 'vigil-recorder-node-a'))?.rules, ownRules('node-a'));
  // Put right means equal to what the API server stores: the next pass writes nothing. Counted in the audit log (a
  // PUT of an unchanged object keeps its resourceVersion, so comparing versions would not see it).
  await until(() => ctx.caches.roleBindings.get(`${ns}/vigil-recorder-node-a-shared`)?.roleRef.name === RECORDER_ROLE && ctx.caches.roles.get(`${ns}/vigil-recorder-node-a`)?.rules?.[0]?.verbs.length === 4, 'the repairs in the caches');
  const from = Date.now();
  await reconcile('node-a', signal);
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const operatorWrites = (await auditedWrites(cluster.controlPlane.auditLogPath, from, Date.now())).filter((w) => w.user === `system:serviceaccount:${ns}:vigil-operator`);
  assert.deepEqual(operatorWrites.map((w) => `${w.verb} ${w.target}`), [], 'no write when nothing drifted');
  assert.equal((await admin.get<Binding>(Resources.roleBindings, ns, 'vigil-recorder-node-a-shared'))?.roleRef.name, RECORDER_ROLE);
  assert.equal((await admin.get<Lease>(Resources.leases, ns, 'vigil-node-node-a'))?.metadata.resourceVersion, renewed.metadata.resourceVersion, 'the recorder\'s Lease untouched');

  // /cluster/leave deleted the Lease: it is made again, empty.
  await admin.delete(Resources.leases, ns, 'vigil-node-node-a');
  await until(() => ctx.caches.leases.get(`${ns}/vigil-node-node-a`) === undefined, 'the Lease gone from the cache');
  await reconcile('node-a', signal);
  assert.equal((await admin.get<Lease>(Resources.leases, ns, 'vigil-node-node-a'))?.spec?.renewTime ?? undefined, undefined);
});
