// The chart installed into the emulator, then vigil-operator started as a real process with the chart's flags, its
// settings file and a token of the chart's operator ServiceAccount (the emulator enforces RBAC): a Node gets a RecorderNode
// and a recorder Pod made of the chart's objects, and a Camera gets a node — with no 403 anywhere.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { waitUntil } from '@vigil/testing/processes';
import { installChartWithOperator, NS } from './support/chart-with-operator.js';

const NODE = 'node-a';

test('the operator converges a Camera with the chart settings and the chart RBAC, without a 403', async (t) => {
  // The operator runs as it would in its Pod: the Deployment's own args, the settings from the chart's ConfigMap.
  const { cluster, operator, kubectl } = await installChartWithOperator(t);

  // A Node appears: its RecorderNode and its recorder Pod, made of what the chart installed.
  await kubectl(['apply', '-f', '-'], `apiVersion: v1\nkind: Node\nmetadata:\n  name: ${NODE}\n  labels:\n    kubernetes.io/hostname: ${NODE}\n`);
  await waitUntil(async () => (await cluster.kubectl(['get', 'rn', NODE])).code === 0, 30_000, 'the RecorderNode');
  await waitUntil(async () => (await cluster.kubectl(['-n', NS, 'get', 'pod', `vigil-recorder-${NODE}`])).code === 0, 30_000, 'the recorder Pod');
  const pod = JSON.parse(await kubectl(['-n', NS, 'get', 'pod', `vigil-recorder-${NODE}`, '-o', 'json'])) as { spec: { nodeName: string; serviceAccountName: string; containers: Array<{ image: string }>; volumes: Array<{ name: string; configMap?: { name: string }; secret?: { secretName: string } }> } };
  assert.equal(pod.spec.nodeName, NODE);
  // The node's own ServiceAccount, made by the operator and bound to the chart's recorder rules.
  assert.equal(pod.spec.serviceAccountName, `vigil-recorder-${NODE}`);
  assert.equal(pod.spec.containers[0]?.image, 'registry.example/vigil:0.1.0');
  const sources = pod.spec.volumes.map((v) => v.configMap?.name ?? v.secret?.secretName).filter(Boolean);
  assert.deepEqual(sources, ['vigil-recorder', 'vigil-api-tokens', 'vigil-cluster-token']);
  await waitUntil(async () => (await cluster.kubectl(['-n', NS, 'get', 'svc', `vigil-recorder-${NODE}`])).code === 0, 30_000, 'the per-node Service');

  // The test plays the recorder's heartbeat, as the node's ServiceAccount (its rules are enforced too).
  const recorderToken = await cluster.emulator.issueServiceAccountToken(NS, `vigil-recorder-${NODE}`);
  const heartbeatErrors: string[] = [];
  const renew = async () => {
    const now = new Date().toISOString().replace('Z', '000Z');
    const lease = { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: `vigil-node-${NODE}`, namespace: NS }, spec: { holderIdentity: NODE, leaseDurationSeconds: 15, renewTime: now } };
    const res = await fetch(`${cluster.emulator.url}/apis/coordination.k8s.io/v1/namespaces/${NS}/leases/vigil-node-${NODE}?fieldManager=test-recorder&force=true`, {
      method: 'PATCH', headers: { authorization: `Bearer ${recorderToken}`, 'content-type': 'application/apply-patch+yaml' }, body: JSON.stringify(lease), signal: AbortSignal.timeout(5000),
    });
    if (!res.ok) heartbeatErrors.push(`${res.status} ${await res.text()}`);
  };
  await renew();
  const heartbeat = setInterval(() => void renew(), 2000);
  t.after(() => clearInterval(heartbeat));
  await waitUntil(async () => (await kubectl(['get', 'rn', NODE, '-o', 'jsonpath={.status.online}'])) === 'true', 30_000, 'the RecorderNode online');

  // A Camera is applied: the operator assigns it to the node.
  await kubectl(['-n', NS, 'apply', '-f', '-'], 'apiVersion: vigil.io/v1alpha1\nkind: Camera\nmetadata:\n  name: porch\nspec:\n  source: rtsp://192.0.2.10:554/stream1\n');
  await waitUntil(async () => (await kubectl(['-n', NS, 'get', 'cam', 'porch', '-o', 'jsonpath={.status.node}'])) === NODE, 30_000, 'the Camera assigned');
  assert.equal(await kubectl(['-n', NS, 'get', 'cam', 'porch', '-o', 'jsonpath={.status.phase}']), 'Assigned');
  assert.match(await kubectl(['-n', NS, 'get', 'events', '--field-selector', 'involvedObject.name=porch', '-o', 'jsonpath={.items[*].reason}']), /Assigned/);
  // Events about the cluster-scoped RecorderNode are in `default`, where a real API server requires them, written
  // with the chart's RBAC, and kubectl finds them.
  const rnEvents = ['-n', 'default', 'get', 'events', '--field-selector', 'involvedObject.kind=RecorderNode', '-o', 'jsonpath={range .items[*]}{.involvedObject.name} {.reason}{"\\n"}{end}'];
  await waitUntil(async () => (await kubectl(rnEvents)).includes(`${NODE} MemberAdded`), 30_000, 'the RecorderNode Event in default');
  assert.match(await kubectl(['describe', 'rn', NODE]), /Normal\s+MemberAdded\s+\S+\s+vigil-operator\s+node node-a joined as a member/);
  assert.deepEqual(operator.output.filter((line) => line.includes('could not write an Event')), [], 'every Event the operator wrote was accepted');

  assert.match(await operator.metrics(), /^vigil_operator_leader 1$/m);
  assert.deepEqual(heartbeatErrors, [], 'the node\'s ServiceAccount may renew its Lease');
  assert.deepEqual(operator.forbidden(), [], 'the operator never met a 403');
  assert.equal(await operator.stop(), 0, `the operator stops cleanly on SIGTERM\n${operator.output.slice(-20).join('\n')}`);
});
