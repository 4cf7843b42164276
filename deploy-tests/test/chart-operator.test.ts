// The chart installed into the real control plane, then vigil-operator started as a real process with the chart's flags, its
// settings file and a token of the chart's operator ServiceAccount (kube-apiserver enforces RBAC): a Node gets a RecorderNode
// and a recorder Pod made of the chart's objects, and a Camera gets a node — with no 403 anywhere.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { waitUntil } from '@vigil/testing/processes';
import { addNode, heartbeat, installWithOperator, NS } from './support/installed-release.js';

const NODE = 'node-a';

test('the operator converges a Camera with the chart settings and the chart RBAC, without a 403', async (t) => {
  const release = await installWithOperator(t);
  const { cluster, operator, kubectl } = release;

  // A Node appears: its RecorderNode and its recorder Pod, made of what the chart installed.
  await addNode(release, NODE);
  await waitUntil(async () => (await cluster.kubectl(['get', 'rn', NODE])).code === 0, 30_000, 'the RecorderNode');
  await waitUntil(async () => (await cluster.kubectl(['-n', NS, 'get', 'pod', `vigil-recorder-${NODE}`])).code === 0, 30_000, 'the recorder Pod');
  const pod = JSON.parse(await kubectl(['-n', NS, 'get', 'pod', `vigil-recorder-${NODE}`, '-o', 'json'])) as { spec: { nodeName: string; serviceAccountName: string; containers: Array<{ image: string }>; volumes: Array<{ name: string; configMap?: { name: string }; secret?: { secretName: string } }> } };
  assert.equal(pod.spec.nodeName, NODE);
  // The node's own ServiceAccount, made by the operator and bound to the chart's recorder rules.
  assert.equal(pod.spec.serviceAccountName, `vigil-recorder-${NODE}`);
  assert.equal(pod.spec.containers[0]?.image, 'registry.example/vigil:0.1.0');
  const sources = pod.spec.volumes.map((v) => v.configMap?.name ?? v.secret?.secretName).filter(Boolean);
  // With TLS (the chart's default) the release CA's certificate too, as cluster.tls.ca_file.
  assert.deepEqual(sources, ['vigil-recorder', 'vigil-api-tokens', 'vigil-cluster-token', 'vigil-ca']);
  await waitUntil(async () => (await cluster.kubectl(['-n', NS, 'get', 'svc', `vigil-recorder-${NODE}`])).code === 0, 30_000, 'the per-node Service');

  // The test plays the recorder's heartbeat, as the node's own ServiceAccount (its rules are enforced too).
  const beat = await heartbeat(t, release, NODE);
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
  assert.deepEqual(beat.errors, [], 'the node\'s ServiceAccount may renew its Lease');
  assert.deepEqual(operator.forbidden(), [], 'the operator never met a 403');
  assert.equal(await operator.stop(), 0, `the operator stops cleanly on SIGTERM\n${operator.output.slice(-20).join('\n')}`);
});
