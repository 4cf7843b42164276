// The tests' control plane itself: kube-apiserver answers as v1.35.4 with the administrator's certificate; a Node gets
// Ready from the process kubelet and its Pods run (an unmapped image as a placeholder); a Pod's graceful deletion ends; a silenced node is marked Unknown
// and tainted by kube-controller-manager's node lifecycle controller; the fault proxy cuts one token off and back.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CoreV1Api, KubeConfig } from '../../src/kube/client-node.js';
import { startControlPlane } from '../../src/kube/control-plane/control-plane.js';
import { waitUntil } from '../../src/processes.js';
import { tempDir } from '../../src/temp-dir.js';

test('kube-apiserver, kube-controller-manager and the process kubelet behave as a cluster', { timeout: 180_000 }, async (t) => {
  const controlPlane = await startControlPlane(await tempDir(t, 'vigil-control-plane-'), { nodeMonitorGracePeriodSeconds: 6 });
  t.after(() => controlPlane.close());
  t.diagnostic(`up in ${controlPlane.startMs} ms`);
  const kc = new KubeConfig();
  kc.loadFromFile(controlPlane.adminKubeconfig);
  const core = kc.makeApiClient(CoreV1Api);
  const version = (await (await controlPlane.fetch('/version', { headers: { authorization: `Bearer ${controlPlane.adminToken}` } })).json()) as { gitVersion: string };
  assert.equal(version.gitVersion, 'v1.35.4');

  await core.createNode({ body: { metadata: { name: 'node-a', labels: { 'kubernetes.io/hostname': 'node-a' } } } });
  const ready = async (status: string) => (await core.readNode({ name: 'node-a' })).status?.conditions?.find((c) => c.type === 'Ready')?.status === status;
  await waitUntil(() => ready('True'), 30_000, 'node-a Ready');
  await waitUntil(async () => (await core.readNamespacedServiceAccount({ name: 'default', namespace: 'default' }).then(() => true, () => false)), 30_000, 'the default ServiceAccount');
  await core.createNamespacedPod({ namespace: 'default', body: { metadata: { name: 'p' }, spec: { nodeName: 'node-a', containers: [{ name: 'c', image: 'x' }] } } });
  await waitUntil(async () => (await core.readNamespacedPod({ name: 'p', namespace: 'default' })).status?.phase === 'Running', 30_000, 'the Pod Running');
  await core.deleteNamespacedPod({ name: 'p', namespace: 'default' });
  await waitUntil(async () => core.readNamespacedPod({ name: 'p', namespace: 'default' }).then(() => false, () => true), 30_000, 'the Pod gone after its graceful deletion');

  // A token through the fault proxy: cut off, then back.
  await core.createNamespacedServiceAccount({ namespace: 'default', body: { metadata: { name: 'someone' } } });
  const token = await controlPlane.issueServiceAccountToken('default', 'someone');
  const asSomeone = () => controlPlane.fetch('/api/v1/namespaces/default/pods', { headers: { authorization: `Bearer ${token}` } });
  assert.equal((await asSomeone()).status, 403, 'RBAC judges the token');
  controlPlane.faults.cutOff(token, 'refuse');
  await assert.rejects(asSomeone());
  controlPlane.faults.restore(token);
  assert.equal((await asSomeone()).status, 403);

  // The node's kubelet goes silent: the node lifecycle controller marks it Unknown and taints it unreachable.
  controlPlane.kubelet.setNodeReady('node-a', false);
  await waitUntil(() => ready('Unknown'), 60_000, 'node-a Unknown');
  await waitUntil(async () => ((await core.readNode({ name: 'node-a' })).spec?.taints ?? []).some((taint) => taint.key === 'node.kubernetes.io/unreachable'), 30_000, 'the unreachable taint');
  controlPlane.kubelet.setNodeReady('node-a', true);
  await waitUntil(() => ready('True'), 30_000, 'node-a Ready again');
});
