// RBAC with real tokens: `kubectl create token` issues a ServiceAccount token that gets 403 without a rule and 200 once a Role is bound.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { ok, startEmulatorFixture } from './emulator-fixture.js';

test('a ServiceAccount token from kubectl create token is forbidden without a rule and allowed with a bound Role', async (t) => {
  const f = await startEmulatorFixture(t);
  ok(await f.kubectl(['create', 'serviceaccount', 'recorder']), 'create sa');
  const token = ok(await f.kubectl(['create', 'token', 'recorder', '--duration=1h']), 'create token').trim();
  assert.match(token, /^[\w-]+\.[\w-]+\.[\w-]+$/);
  const saConfig = join(f.dir, 'recorder.kubeconfig');
  await f.emulator.writeKubeconfig(saConfig, { token, user: 'recorder' });

  const denied = await f.kubectl(['get', 'pods'], { kubeconfig: saConfig });
  assert.equal(denied.code, 1);
  assert.match(denied.stderr, /Error from server \(Forbidden\): pods is forbidden: User "system:serviceaccount:default:recorder" cannot list resource "pods" in API group "" in the namespace "default"/);
  assert.equal((await f.kubectl(['auth', 'can-i', 'list', 'pods'], { kubeconfig: saConfig })).stdout.trim(), 'no');

  ok(await f.kubectl(['create', 'role', 'pod-reader', '--verb=get,list,watch', '--resource=pods']), 'create role');
  ok(await f.kubectl(['create', 'rolebinding', 'recorder-reads-pods', '--role=pod-reader', '--serviceaccount=default:recorder']), 'create rolebinding');
  const allowed = await f.kubectl(['get', 'pods'], { kubeconfig: saConfig });
  assert.equal(allowed.code, 0, allowed.stderr);
  assert.match(allowed.stderr, /No resources found in default namespace/);
  assert.equal((await f.kubectl(['auth', 'can-i', 'list', 'pods'], { kubeconfig: saConfig })).stdout.trim(), 'yes');
  assert.equal((await f.kubectl(['auth', 'can-i', 'delete', 'pods'], { kubeconfig: saConfig })).stdout.trim(), 'no');

  // The Role is namespaced: other namespaces and other verbs stay forbidden, with the real messages.
  const otherNs = await f.kubectl(['get', 'pods', '-n', 'kube-system'], { kubeconfig: saConfig });
  assert.match(otherNs.stderr, /pods is forbidden: User "system:serviceaccount:default:recorder" cannot list resource "pods" in API group "" in the namespace "kube-system"/);
  const secret = await f.kubectl(['get', 'secret', 'x'], { kubeconfig: saConfig });
  assert.match(secret.stderr, /secrets "x" is forbidden: User "system:serviceaccount:default:recorder" cannot get resource "secrets" in API group "" in the namespace "default"/);
  const nodes = await f.kubectl(['get', 'nodes'], { kubeconfig: saConfig });
  assert.match(nodes.stderr, /nodes is forbidden: User "system:serviceaccount:default:recorder" cannot list resource "nodes" in API group "" at the cluster scope/);

  // client-node with the same token sees the same answers.
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(saConfig);
  const core = kc.makeApiClient(k8s.CoreV1Api);
  assert.deepEqual((await core.listNamespacedPod({ namespace: 'default' })).items, []);
  const forbidden = await core.listNamespacedSecret({ namespace: 'default' }).catch((e: unknown) => e);
  assert.equal((forbidden as k8s.ApiException<string>).code, 403);

  // Deleting the account revokes its tokens.
  ok(await f.kubectl(['delete', 'serviceaccount', 'recorder']), 'delete sa');
  const revoked = await f.request('GET', '/api/v1/namespaces/default/pods', undefined, { token });
  assert.equal(revoked.status, 401);
  assert.equal((revoked.body as { reason: string }).reason, 'Unauthorized');
});

test('ClusterRoles bound cluster-wide, subresources and resourceNames are honoured; anonymous and unknown tokens are refused', async (t) => {
  const f = await startEmulatorFixture(t);
  ok(await f.kubectl(['create', 'serviceaccount', 'operator', '-n', 'kube-system']), 'create sa');
  const token = await f.emulator.issueServiceAccountToken('kube-system', 'operator');
  const as = (method: string, path: string, body?: unknown) => f.request(method, path, body, { token, contentType: method === 'PATCH' ? 'application/merge-patch+json' : 'application/json' });

  ok(await f.kubectl(['create', 'clusterrole', 'node-reader', '--verb=get,list,watch', '--resource=nodes']), 'clusterrole');
  ok(await f.kubectl(['create', 'clusterrolebinding', 'operator-nodes', '--clusterrole=node-reader', '--serviceaccount=kube-system:operator']), 'binding');
  assert.equal((await as('GET', '/api/v1/nodes')).status, 200);
  assert.equal((await as('POST', '/api/v1/nodes', { metadata: { name: 'n9' } })).status, 403);

  // A Role naming one Lease and only the status subresource of pods.
  ok(await f.kubectl(['create', 'role', 'leader', '-n', 'default', '--verb=get,update', '--resource=leases', '--resource-name=vigil-operator']), 'role');
  ok(await f.kubectl(['create', 'role', 'pod-status', '-n', 'default', '--verb=patch', '--resource=pods/status']), 'role');
  ok(await f.kubectl(['create', 'rolebinding', 'leader', '-n', 'default', '--role=leader', '--serviceaccount=kube-system:operator']), 'rb');
  ok(await f.kubectl(['create', 'rolebinding', 'pod-status', '-n', 'default', '--role=pod-status', '--serviceaccount=kube-system:operator']), 'rb');
  await f.request('POST', '/apis/coordination.k8s.io/v1/namespaces/default/leases', { metadata: { name: 'vigil-operator' }, spec: {} });
  await f.request('POST', '/apis/coordination.k8s.io/v1/namespaces/default/leases', { metadata: { name: 'other' }, spec: {} });
  assert.equal((await as('GET', '/apis/coordination.k8s.io/v1/namespaces/default/leases/vigil-operator')).status, 200);
  const other = await as('GET', '/apis/coordination.k8s.io/v1/namespaces/default/leases/other');
  assert.equal(other.status, 403);
  assert.equal((other.body as { message: string }).message, 'leases.coordination.k8s.io "other" is forbidden: User "system:serviceaccount:kube-system:operator" cannot get resource "leases" in API group "coordination.k8s.io" in the namespace "default"');
  await f.request('POST', '/api/v1/namespaces/default/pods', { metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'busybox' }] } });
  assert.equal((await as('PATCH', '/api/v1/namespaces/default/pods/p/status', { status: { message: 'hi' } })).status, 200);
  const spec = await as('PATCH', '/api/v1/namespaces/default/pods/p', { metadata: { labels: { a: 'b' } } });
  assert.equal(spec.status, 403);
  assert.match((spec.body as { message: string }).message, /cannot patch resource "pods" in API group ""/);

  const anonymous = await fetch(`${f.emulator.url}/api/v1/namespaces`);
  assert.equal(anonymous.status, 403);
  assert.equal(((await anonymous.json()) as { message: string }).message, 'namespaces is forbidden: User "system:anonymous" cannot list resource "namespaces" in API group "" at the cluster scope');
  assert.equal((await fetch(`${f.emulator.url}/version`)).status, 200);
  assert.equal((await f.request('GET', '/api/v1/namespaces', undefined, { token: 'not-a-token' })).status, 401);
});

test('a list or watch naming one object by field selector is authorised by resourceNames, as kube-apiserver does', async (t) => {
  const f = await startEmulatorFixture(t);
  ok(await f.kubectl(['create', 'serviceaccount', 'reader']), 'create sa');
  for (const name of ['allowed', 'other']) ok(await f.kubectl(['create', 'secret', 'generic', name, '--from-literal=k=v']), `secret ${name}`);
  // kubectl sends no type: the server makes it Opaque, and a field selector on the type finds it.
  assert.equal(ok(await f.kubectl(['get', 'secret', 'allowed', '-o', 'jsonpath={.type}']), 'type'), 'Opaque');
  assert.equal(ok(await f.kubectl(['get', 'secrets', '--field-selector', 'type=Opaque', '-o', 'name']), 'by type').trim().split('\n').sort().join(' '), 'secret/allowed secret/other');
  ok(await f.kubectl(['create', 'role', 'one-secret', '--verb=get,list,watch', '--resource=secrets', '--resource-name=allowed']), 'role');
  ok(await f.kubectl(['create', 'rolebinding', 'one-secret', '--role=one-secret', '--serviceaccount=default:reader']), 'rb');
  const saConfig = join(f.dir, 'reader.kubeconfig');
  await f.emulator.writeKubeconfig(saConfig, { token: await f.emulator.issueServiceAccountToken('default', 'reader'), user: 'reader' });
  const as = (args: string[]) => f.kubectl(args, { kubeconfig: saConfig });

  assert.match(ok(await as(['get', 'secrets', '--field-selector', 'metadata.name=allowed', '-o', 'name']), 'list one'), /^secret\/allowed$/m);
  const all = await as(['get', 'secrets']);
  assert.match(all.stderr, /secrets is forbidden: User "system:serviceaccount:default:reader" cannot list resource "secrets" in API group "" in the namespace "default"/);
  const other = await as(['get', 'secrets', '--field-selector', 'metadata.name=other']);
  assert.match(other.stderr, /secrets "other" is forbidden: User "system:serviceaccount:default:reader" cannot list resource "secrets"/);
  // A watch of the one name is allowed too; of everything it is not.
  const token = await f.emulator.issueServiceAccountToken('default', 'reader');
  const watchOne = await fetch(`${f.emulator.url}/api/v1/namespaces/default/secrets?watch=true&timeoutSeconds=1&fieldSelector=metadata.name%3Dallowed`, { headers: { authorization: `Bearer ${token}` } });
  assert.equal(watchOne.status, 200);
  assert.match(await watchOne.text(), /"name":"allowed"/);
  const watchAll = await fetch(`${f.emulator.url}/api/v1/namespaces/default/secrets?watch=true&timeoutSeconds=1`, { headers: { authorization: `Bearer ${token}` } });
  assert.equal(watchAll.status, 403);
  await watchAll.body?.cancel();
});
