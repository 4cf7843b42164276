// Least privilege of a recorder, shown as a platform engineer would: the chart installed, vigil-operator running with
// the chart's RBAC makes each node's ServiceAccount, and `kubectl create token` for one node's account gets 403 for
// every membership write (spec.member, the left annotation, any RecorderNode status, the operator's Lease, another
// node's Lease) while its own heartbeat Lease and reading the cluster stay allowed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { waitUntil } from '@vigil/testing/processes';
import { installWithOperator, NS } from './support/installed-release.js';

test('a node\'s recorder token (kubectl create token) may renew its own Lease and read, and gets 403 for every membership write', async (t) => {
  const { cluster, operator, kubectl } = await installWithOperator(t);
  for (const node of ['node-a', 'node-b']) await kubectl(['apply', '-f', '-'], `apiVersion: v1\nkind: Node\nmetadata:\n  name: ${node}\n`);
  await waitUntil(async () => (await cluster.kubectl(['-n', NS, 'get', 'lease', 'vigil-node-node-a', 'vigil-node-node-b', 'vigil-operator'])).code === 0, 30_000, 'both heartbeat Leases and the leader Lease');
  await waitUntil(async () => (await cluster.kubectl(['-n', NS, 'get', 'sa', 'vigil-recorder-node-a'])).code === 0, 30_000, 'node-a\'s ServiceAccount');

  // What a platform engineer types to see what a compromised recorder could do.
  const token = (await kubectl(['-n', NS, 'create', 'token', 'vigil-recorder-node-a'])).trim();
  const asRecorder = join(cluster.dir, 'recorder-a.kubeconfig');
  await cluster.controlPlane.writeKubeconfig(asRecorder, { token, namespace: NS, user: 'recorder-a' });
  const run = (args: string[]) => cluster.kubectl(args, { kubeconfig: asRecorder });

  const forbidden: Array<[string, string[]]> = [
    ['leave the vote itself', ['patch', 'rn', 'node-a', '--type', 'merge', '-p', '{"spec":{"member":false}}']],
    ['take another node out of the vote', ['patch', 'rn', 'node-b', '--type', 'merge', '-p', '{"spec":{"member":false}}']],
    ['mark a node as left', ['annotate', 'rn', 'node-b', 'vigil.io/left=now']],
    ['write another node\'s status', ['patch', 'rn', 'node-b', '--subresource', 'status', '--type', 'merge', '-p', '{"status":{"online":false}}']],
    ['write its own RecorderNode status', ['patch', 'rn', 'node-a', '--subresource', 'status', '--type', 'merge', '-p', '{"status":{"cameras":99}}']],
    ['create a RecorderNode', ['create', '-f', '-']],
    ['delete the operator\'s Lease', ['-n', NS, 'delete', 'lease', 'vigil-operator']],
    ['delete another node\'s heartbeat', ['-n', NS, 'delete', 'lease', 'vigil-node-node-b']],
    ['renew another node\'s heartbeat', ['-n', NS, 'annotate', 'lease', 'vigil-node-node-b', 'x=y']],
    ['create a Lease', ['-n', NS, 'create', '-f', '-']],
  ];
  const inputs: Record<string, string> = {
    'create a RecorderNode': 'apiVersion: vigil.io/v1alpha1\nkind: RecorderNode\nmetadata:\n  name: node-z\nspec:\n  nodeName: node-z\n',
    'create a Lease': 'apiVersion: coordination.k8s.io/v1\nkind: Lease\nmetadata:\n  name: vigil-node-node-z\nspec:\n  holderIdentity: node-z\n',
  };
  for (const [what, args] of forbidden) {
    const input = inputs[what];
    const res = await cluster.kubectl(args, { kubeconfig: asRecorder, ...(input !== undefined ? { input } : {}) });
    assert.notEqual(res.code, 0, `${what}: allowed`);
    assert.match(res.stderr, /\(Forbidden\)/, `${what}: ${res.stderr}`);
    assert.match(res.stderr, /system:serviceaccount:vigil:vigil-recorder-node-a/, `${what}: ${res.stderr}`);
  }
  // Nothing changed.
  assert.equal(await kubectl(['get', 'rn', 'node-b', '-o', 'jsonpath={.spec.member}']), 'true');
  await kubectl(['-n', NS, 'get', 'lease', 'vigil-operator', 'vigil-node-node-b']);

  // What it needs stays allowed: its own heartbeat Lease (renewed, annotated with its report and requests), reading.
  for (const args of [['-n', NS, 'annotate', 'lease', 'vigil-node-node-a', 'vigil.io/version=1.0', '--overwrite'], ['get', 'rn'], ['-n', NS, 'get', 'cameras'], ['-n', NS, 'get', 'leases']]) {
    const res = await run(args);
    assert.equal(res.code, 0, `${args.join(' ')}: ${res.stderr}`);
  }
  assert.deepEqual(operator.forbidden(), [], 'the operator itself met no 403');
});
