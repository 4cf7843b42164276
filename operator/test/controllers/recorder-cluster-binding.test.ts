// The chart's recorder ClusterRoleBinding: the operator keeps its subjects to every RecorderNode's ServiceAccount, and
// with its real ServiceAccount token (the chart's RBAC on kube-apiserver, which enforces it) may update that binding
// alone: any other ClusterRoleBinding of the cluster cannot be updated, deleted or made by it (403).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { API_VERSION, type RecorderNode } from '@vigil/crds';
import { Resources, type Binding } from '@vigil/kube';
import { RECORDER_CLUSTER_ROLE } from '@vigil/testing/kube/test-cluster';
import { identityComplete, reconcileRecorderIdentityFor } from '../../src/controllers/recorder-identity.js';
import { inProcessOperator } from '../support/in-process.js';

test('one recorder ClusterRoleBinding lists every node\'s ServiceAccount; the operator may write no other ClusterRoleBinding', async (t) => {
  const { ctx, admin, signal, until, cluster } = await inProcessOperator(t);
  const ns = cluster.namespace;
  for (const n of ['node-b', 'node-a']) await admin.create<RecorderNode>(Resources.recorderNodes, { apiVersion: API_VERSION, kind: 'RecorderNode', metadata: { name: n }, spec: { nodeName: n, member: true } });
  await until(() => ctx.caches.recorderNodes.list().length === 2 && ctx.caches.clusterRoleBindings.get(RECORDER_CLUSTER_ROLE) !== undefined, 'the RecorderNodes and the binding in the caches');
  const reconcile = reconcileRecorderIdentityFor(ctx);
  await reconcile('node-a', signal);
  await reconcile('node-b', signal);
  const subjectsOf = async () => ((await admin.get<Binding>(Resources.clusterRoleBindings, undefined, RECORDER_CLUSTER_ROLE))?.subjects ?? []).map((s) => s.name);
  assert.deepEqual(await subjectsOf(), ['vigil-recorder-node-a', 'vigil-recorder-node-b']);
  await until(() => ['node-a', 'node-b'].every((n) => identityComplete(ctx, ctx.caches.recorderNodes.get(n) as RecorderNode)), 'both identities complete');

  // A node removed: its ServiceAccount leaves the binding at the next pass.
  await admin.delete(Resources.recorderNodes, undefined, 'node-b');
  await until(() => ctx.caches.recorderNodes.get('node-b') === undefined, 'node-b gone from the cache');
  await reconcile('node-b', signal);
  assert.deepEqual(await subjectsOf(), ['vigil-recorder-node-a']);

  // Someone adds a stranger to the binding: put right.
  const binding = (await admin.get<Binding>(Resources.clusterRoleBindings, undefined, RECORDER_CLUSTER_ROLE)) as Binding;
  const tampered = await admin.replace<Binding>(Resources.clusterRoleBindings, { ...binding, subjects: [...(binding.subjects ?? []), { kind: 'ServiceAccount', name: 'stranger', namespace: ns }] });
  await until(() => ctx.caches.clusterRoleBindings.get(RECORDER_CLUSTER_ROLE)?.metadata.resourceVersion === tampered.metadata.resourceVersion, 'the change in the cache');
  await reconcile('node-a', signal);
  assert.deepEqual(await subjectsOf(), ['vigil-recorder-node-a']);

  // The operator's own token (ctx.client) on any other ClusterRoleBinding: refused.
  const other = await admin.create<Binding>(Resources.clusterRoleBindings, { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: 'someone-elses-binding' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: RECORDER_CLUSTER_ROLE }, subjects: [{ kind: 'ServiceAccount', name: 'x', namespace: ns }] });
  const status = async (call: Promise<unknown>): Promise<number> => call.then(() => 200, (err: unknown) => (err as { status?: number }).status ?? 0);
  assert.equal(await status(ctx.client.replace(Resources.clusterRoleBindings, { ...other, subjects: [{ kind: 'ServiceAccount', name: 'vigil-recorder-node-a', namespace: ns }] }, { signal })), 403, 'update of another binding');
  assert.equal(await status(ctx.client.delete(Resources.clusterRoleBindings, undefined, 'someone-elses-binding', { signal })), 403, 'delete of another binding');
  assert.equal(await status(ctx.client.delete(Resources.clusterRoleBindings, undefined, RECORDER_CLUSTER_ROLE, { signal })), 403, 'delete of its own binding too');
  assert.equal(await status(ctx.client.create(Resources.clusterRoleBindings, { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: 'made-by-operator' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: RECORDER_CLUSTER_ROLE }, subjects: [] }, { signal })), 403, 'create of a binding');
  assert.deepEqual((await admin.get<Binding>(Resources.clusterRoleBindings, undefined, 'someone-elses-binding'))?.subjects?.map((s) => s.name), ['x'], 'the other binding unchanged');
});
