// RBAC with real tokens: `kubectl create token` issues a ServiceAccount token that gets 403 without a rule and 200 once a Role is bound.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { FIXTURES, ok, startEmulatorFixture } from './emulator-fixture.js';

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

test('403 bodies and reasons as kube-apiserver writes them: no empty group, a missing Role named, "allowed by" in reviews; kubectl auth can-i --list and --as', async (t) => {
  const f = await startEmulatorFixture(t);
  ok(await f.kubectl(['apply', '-f', join(FIXTURES, 'recordernode-crd.yaml')]), 'crd');
  ok(await f.kubectl(['create', 'serviceaccount', 'recorder']), 'sa');
  const token = ok(await f.kubectl(['create', 'token', 'recorder']), 'token').trim();
  const as = (method: string, path: string, body?: unknown) => f.request(method, path, body, { token, contentType: method === 'PATCH' ? 'application/merge-patch+json' : 'application/json' });

  const pods = await as('GET', '/api/v1/namespaces/default/pods');
  assert.deepEqual(pods.body, {
    kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'Forbidden', code: 403, details: { kind: 'pods' },
    message: 'pods is forbidden: User "system:serviceaccount:default:recorder" cannot list resource "pods" in API group "" in the namespace "default"',
  });
  const status = await as('PATCH', '/apis/vigil.io/v1alpha1/recordernodes/n1/status', { status: { url: 'http://x' } });
  assert.deepEqual((status.body as { details: unknown }).details, { name: 'n1', group: 'vigil.io', kind: 'recordernodes' });
  assert.equal((status.body as { message: string }).message, 'recordernodes.vigil.io "n1" is forbidden: User "system:serviceaccount:default:recorder" cannot patch resource "recordernodes/status" in API group "vigil.io" at the cluster scope');

  // A binding to a Role that does not exist: RBAC says so in the 403.
  ok(await f.kubectl(['create', 'rolebinding', 'reads', '--role=pod-reader', '--serviceaccount=default:recorder']), 'binding to a missing role');
  assert.equal(((await as('GET', '/api/v1/namespaces/default/pods')).body as { message: string }).message,
    'pods is forbidden: User "system:serviceaccount:default:recorder" cannot list resource "pods" in API group "" in the namespace "default": RBAC: role.rbac.authorization.k8s.io "pod-reader" not found');
  ok(await f.kubectl(['create', 'role', 'pod-reader', '--verb=get,list', '--resource=pods']), 'the role');
  assert.equal((await as('GET', '/api/v1/namespaces/default/pods')).status, 200);
  const review = await as('POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', { spec: { resourceAttributes: { namespace: 'default', verb: 'list', resource: 'pods' } } });
  assert.deepEqual((review.body as { status: unknown }).status, { allowed: true, reason: 'RBAC: allowed by RoleBinding "reads/default" of Role "pod-reader" to ServiceAccount "recorder/default"' });

  // kubectl auth can-i --list reads a SelfSubjectRulesReview.
  const saConfig = join(f.dir, 'recorder.kubeconfig');
  await f.emulator.writeKubeconfig(saConfig, { token, user: 'recorder' });
  const list = ok(await f.kubectl(['auth', 'can-i', '--list', '-n', 'default'], { kubeconfig: saConfig }), 'can-i --list');
  assert.match(list, /^pods\s+\[\]\s+\[\]\s+\[get list\]$/m);
  assert.match(list, /^selfsubjectaccessreviews.authorization.k8s.io\s+\[\]\s+\[\]\s+\[create\]$/m);

  // --as: the admin may impersonate; the answers are the impersonated account's.
  assert.equal((await f.kubectl(['auth', 'can-i', 'list', 'pods', '--as=system:serviceaccount:default:recorder'])).stdout.trim(), 'yes');
  assert.equal((await f.kubectl(['auth', 'can-i', 'delete', 'pods', '--as=system:serviceaccount:default:recorder'])).stdout.trim(), 'no');
  const impersonated = await f.kubectl(['get', 'secrets', '--as=system:serviceaccount:default:recorder']);
  assert.match(impersonated.stderr, /secrets is forbidden: User "system:serviceaccount:default:recorder" cannot list resource "secrets" in API group "" in the namespace "default"/);
  // The account itself may not impersonate anyone.
  const escalate = await f.kubectl(['get', 'pods', '--as=system:serviceaccount:kube-system:default'], { kubeconfig: saConfig });
  assert.match(escalate.stderr, /serviceaccounts "default" is forbidden: User "system:serviceaccount:default:recorder" cannot impersonate resource "serviceaccounts" in API group "" in the namespace "kube-system"/);
});

test('resourceNames: a list or watch pinned to the name by a field selector is allowed, a plain list and a create are not', async (t) => {
  const f = await startEmulatorFixture(t);
  ok(await f.kubectl(['create', 'serviceaccount', 'recorder']), 'sa');
  ok(await f.kubectl(['create', 'secret', 'generic', 'own', '--from-literal=k=v']), 'own secret');
  ok(await f.kubectl(['create', 'secret', 'generic', 'other', '--from-literal=k=v']), 'other secret');
  ok(await f.kubectl(['create', 'role', 'own-secret', '--verb=get,list,watch,create,update', '--resource=secrets', '--resource-name=own']), 'role');
  ok(await f.kubectl(['create', 'rolebinding', 'own-secret', '--role=own-secret', '--serviceaccount=default:recorder']), 'binding');
  const token = await f.emulator.issueServiceAccountToken('default', 'recorder');
  const as = (method: string, path: string, body?: unknown) => f.request(method, path, body, { token });
  assert.equal((await as('GET', '/api/v1/namespaces/default/secrets/own')).status, 200);
  assert.equal((await as('GET', '/api/v1/namespaces/default/secrets/other')).status, 403);
  const pinned = await as('GET', '/api/v1/namespaces/default/secrets?fieldSelector=metadata.name%3Down');
  assert.deepEqual([pinned.status, (pinned.body as { items: Array<{ metadata: { name: string } }> }).items.map((s) => s.metadata.name)], [200, ['own']]);
  const everything = await as('GET', '/api/v1/namespaces/default/secrets');
  assert.equal(everything.status, 403);
  const otherPinned = await as('GET', '/api/v1/namespaces/default/secrets?fieldSelector=metadata.name%3Dother');
  assert.equal((otherPinned.body as { message: string }).message, 'secrets "other" is forbidden: User "system:serviceaccount:default:recorder" cannot list resource "secrets" in API group "" in the namespace "default"');
  // A watch of the one name, as an informer scoped to it opens.
  const watch = await fetch(`${f.emulator.url}/api/v1/namespaces/default/secrets?watch=true&fieldSelector=metadata.name%3Down&timeoutSeconds=1`, { headers: { authorization: `Bearer ${token}` } });
  assert.equal(watch.status, 200);
  await watch.text();
  // A create has no name to match: resourceNames never allow it.
  const created = await as('POST', '/api/v1/namespaces/default/secrets', { metadata: { name: 'own' }, data: {} });
  assert.equal(created.status, 403);
});
