// The chart's API Priority and Fairness objects (templates/flowcontrol.yaml) on kube-apiserver: the Lease requests of
// the release's ServiceAccounts land in the release's own priority level, everything else they ask where it was.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ok, startKubeCluster } from '@vigil/testing/kube/kube-cluster';
import { CHART_DIR, find, renderChart } from './support/chart.js';

test('rendered: a FlowSchema and its priority level for the release namespace\'s Lease requests; none when disabled', async (t) => {
  const objects = await renderChart(t, {}, { namespace: 'cams', release: 'site-a' });
  const schema = find(objects, 'FlowSchema', 'cams-site-a-vigil-leases') as unknown as {
    spec: { priorityLevelConfiguration: { name: string }; rules: Array<{ subjects: Array<{ serviceAccount: { namespace: string; name: string } }>; resourceRules: Array<{ resources: string[]; namespaces: string[] }> }> };
  };
  find(objects, 'PriorityLevelConfiguration', 'cams-site-a-vigil-leases');
  assert.equal(schema.spec.priorityLevelConfiguration.name, 'cams-site-a-vigil-leases');
  assert.deepEqual(schema.spec.rules.map((r) => [r.subjects.map((s) => `${s.serviceAccount.namespace}/${s.serviceAccount.name}`), r.resourceRules.map((x) => [x.resources, x.namespaces])]), [[['cams/*'], [[['leases'], ['cams']]]]]);
  const off = await renderChart(t, { flowControl: { enabled: false } });
  assert.deepEqual(off.filter((o) => o.kind === 'FlowSchema' || o.kind === 'PriorityLevelConfiguration'), []);
});

test('installed: the operator\'s Lease requests are classified by the release\'s FlowSchema, its other requests are not', async (t) => {
  const cluster = await startKubeCluster(t);
  ok(await cluster.kubectl(['apply', '--server-side', '-f', `${CHART_DIR}/crds`]), 'CRDs');
  ok(await cluster.helm(['install', 'vigil', CHART_DIR, '-n', 'vigil', '--create-namespace']), 'install');
  const uid = ok(await cluster.kubectl(['get', 'flowschema', 'vigil-vigil-leases', '-o', 'jsonpath={.metadata.uid}']), 'the FlowSchema').trim();
  const builtIn = ok(await cluster.kubectl(['get', 'flowschema', 'service-accounts', '-o', 'jsonpath={.metadata.uid}']), 'the built-in FlowSchema').trim();
  const token = ok(await cluster.kubectl(['-n', 'vigil', 'create', 'token', 'vigil-operator']), 'a token of the operator').trim();
  // kube-apiserver names the FlowSchema that classified each request in a response header.
  const classifiedBy = async (path: string) => {
    const res = await cluster.controlPlane.fetch(path, { headers: { authorization: `Bearer ${token}` } });
    await res.arrayBuffer();
    return res.headers.get('x-kubernetes-pf-flowschema-uid');
  };
  assert.equal(await classifiedBy('/apis/coordination.k8s.io/v1/namespaces/vigil/leases/vigil-operator'), uid, 'the leader Lease');
  assert.equal(await classifiedBy('/apis/vigil.io/v1alpha1/namespaces/vigil/cameras'), builtIn, 'a list of Cameras stays with every ServiceAccount');
  assert.equal(await classifiedBy('/apis/coordination.k8s.io/v1/namespaces/default/leases/x'), builtIn, 'a Lease of another namespace is not ours');
});
