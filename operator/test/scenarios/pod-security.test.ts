// A namespace whose Pod Security level refuses the recorder Pods (enforce=baseline: hostPath volumes): the RecorderNode
// says why with the API server's own message (condition PodCreated=False, reason PodForbidden, and a Warning Event), the
// operator keeps trying with backoff, and once the namespace allows it (privileged) the Pod is made and the condition clears.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startTestCluster } from '@vigil/testing/kube/test-cluster';
import { startOperator } from '@vigil/testing/kube/operator-process';
import { waitUntil } from '@vigil/testing/processes';

const NODE = 'node-a';

test('recorder Pods refused by Pod Security admission: the RecorderNode names the cause, and recovers once allowed', async (t) => {
  const cluster = await startTestCluster(t);
  await cluster.kubectl('label', 'namespace', cluster.namespace, 'pod-security.kubernetes.io/enforce=baseline');
  await cluster.addNode(NODE);
  const operator = await startOperator(t, cluster, 'op-1');

  type Condition = { type: string; status: string; reason?: string; message?: string };
  const podCreated = async (): Promise<Condition | undefined> => (await cluster.recorderNodes()).find((r) => r.metadata.name === NODE)?.status?.conditions?.find((c) => c.type === 'PodCreated') as Condition | undefined;
  let condition: Condition | undefined;
  await waitUntil(async () => (condition = await podCreated())?.reason === 'PodForbidden', 30_000, 'PodCreated=False PodForbidden');
  assert.equal(condition?.status, 'False');
  assert.equal(condition?.message, `cannot create Pod vigil-recorder-${NODE}: pods "vigil-recorder-${NODE}" is forbidden: violates PodSecurity "baseline:latest": hostPath volumes (volumes "recordings", "data")`);
  const described = await cluster.kubectl('describe', 'rn', NODE);
  assert.match(described, /Message:\s+cannot create Pod vigil-recorder-node-a: pods "vigil-recorder-node-a" is forbidden: violates PodSecurity[^]*?Reason:\s+PodForbidden\s+Status:\s+False\s+Type:\s+PodCreated/);
  await waitUntil(async () => /Warning\s+PodForbidden\s+.*violates PodSecurity "baseline:latest": hostPath volumes/.test(await cluster.kubectl('describe', 'rn', NODE)), 30_000, 'the Warning Event in kubectl describe rn');
  assert.equal((await cluster.core.listNamespacedPod({ namespace: cluster.namespace })).items.length, 0);

  // Retried with backoff, not in a tight loop: a handful of attempts in a few seconds, and still refused.
  const attempts = () => operator.lines.filter((l) => l.controller === 'recorderpod' && l.msg === 'reconcile failed; requeued with backoff').length;
  const before = attempts();
  await new Promise((r) => setTimeout(r, 4000));
  const during = attempts() - before;
  assert.ok(during >= 1 && during <= 8, `${during} attempts in 4 s`);

  // The platform team labels the namespace as the docs say: the Pod is made and the condition says so.
  await cluster.kubectl('label', '--overwrite', 'namespace', cluster.namespace, 'pod-security.kubernetes.io/enforce=privileged');
  await waitUntil(async () => (condition = await podCreated())?.status === 'True', 60_000, 'PodCreated=True once allowed');
  assert.equal(condition?.reason, 'PodCreated');
  const pods = (await cluster.core.listNamespacedPod({ namespace: cluster.namespace })).items;
  assert.deepEqual(pods.map((p) => p.metadata?.name), [`vigil-recorder-${NODE}`]);
});
