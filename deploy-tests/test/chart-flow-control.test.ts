// The chart's API Priority and Fairness objects (templates/flowcontrol.yaml) on kube-apiserver: the Lease requests of
// the operator land in the release's leader-election level, its other requests in the release's operator level, the
// recorders' Leases in its heartbeats level, everything else the recorders ask where it was.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ok, startKubeCluster } from '@vigil/testing/kube/kube-cluster';
import { CHART_DIR, find, renderChart } from './support/chart.js';

type Schema = {
  spec: { priorityLevelConfiguration: { name: string }; matchingPrecedence: number; rules: Array<{ subjects: Array<{ serviceAccount: { namespace: string; name: string } }>; resourceRules: Array<{ resources: string[]; namespaces: string[]; clusterScope?: boolean }> }> };
};

test('rendered: a priority level and FlowSchema for the operator\'s leader election, one for its other requests and one for the heartbeats; none when disabled', async (t) => {
  const objects = await renderChart(t, {}, { namespace: 'cams', release: 'site-a' });
  const describe = (name: string) => {
    const schema = find(objects, 'FlowSchema', name) as unknown as Schema;
    const level = find(objects, 'PriorityLevelConfiguration', name) as unknown as { spec: { limited: { nominalConcurrencyShares: number } } };
    return {
      level: schema.spec.priorityLevelConfiguration.name, precedence: schema.spec.matchingPrecedence, shares: level.spec.limited.nominalConcurrencyShares,
      rules: schema.spec.rules.map((r) => [r.subjects.map((x) => `${x.serviceAccount.namespace}/${x.serviceAccount.name}`), r.resourceRules.map((x) => [x.resources, x.namespaces, x.clusterScope === true])]),
    };
  };
  const operatorAccount = (find(objects, 'Deployment', 'site-a-vigil-operator') as unknown as { spec: { template: { spec: { serviceAccountName: string } } } }).spec.template.spec.serviceAccountName;
  assert.deepEqual(describe('cams-site-a-vigil-leader-election'), { level: 'cams-site-a-vigil-leader-election', precedence: 1400, shares: 10, rules: [[[`cams/${operatorAccount}`], [[['leases'], ['cams'], false]]]] });
  // The rest of what the operator asks, after its Lease (a lower precedence matches first).
  assert.deepEqual(describe('cams-site-a-vigil-operator'), { level: 'cams-site-a-vigil-operator', precedence: 1450, shares: 60, rules: [[[`cams/${operatorAccount}`], [[['*'], ['*'], true]]]] });
  // Every other ServiceAccount of the namespace (the recorders'), after the operator's.
  assert.deepEqual(describe('cams-site-a-vigil-heartbeats'), { level: 'cams-site-a-vigil-heartbeats', precedence: 1500, shares: 40, rules: [[['cams/*'], [[['leases'], ['cams'], false]]]] });
  const off = await renderChart(t, { flowControl: { enabled: false } });
  assert.deepEqual(off.filter((o) => o.kind === 'FlowSchema' || o.kind === 'PriorityLevelConfiguration'), []);
});

test('installed: the operator\'s Lease requests go to the leader-election level, its other requests to the operator level, a recorder\'s Lease to the heartbeats, its other requests where they were', async (t) => {
  const cluster = await startKubeCluster(t);
  ok(await cluster.kubectl(['apply', '--server-side', '-f', `${CHART_DIR}/crds`]), 'CRDs');
  ok(await cluster.helm(['install', 'vigil', CHART_DIR, '-n', 'vigil', '--create-namespace']), 'install');
  const uidOf = async (name: string) => ok(await cluster.kubectl(['get', 'flowschema', name, '-o', 'jsonpath={.metadata.uid}']), `FlowSchema ${name}`).trim();
  const leaderElection = await uidOf('vigil-vigil-leader-election');
  const operatorLevel = await uidOf('vigil-vigil-operator');
  const heartbeats = await uidOf('vigil-vigil-heartbeats');
  const builtIn = await uidOf('service-accounts');
  ok(await cluster.kubectl(['-n', 'vigil', 'create', 'serviceaccount', 'vigil-recorder-node-a']), 'a recorder\'s ServiceAccount');
  const tokenOf = async (account: string) => ok(await cluster.kubectl(['-n', 'vigil', 'create', 'token', account]), `a token of ${account}`).trim();
  const operator = await tokenOf('vigil-operator');
  const recorder = await tokenOf('vigil-recorder-node-a');
  // kube-apiserver names the FlowSchema that classified each request in a response header.
  const classifiedBy = async (token: string, path: string) => {
    const res = await cluster.controlPlane.fetch(path, { headers: { authorization: `Bearer ${token}` } });
    await res.arrayBuffer();
    return res.headers.get('x-kubernetes-pf-flowschema-uid');
  };
  assert.equal(await classifiedBy(operator, '/apis/coordination.k8s.io/v1/namespaces/vigil/leases/vigil-operator'), leaderElection, 'the leader Lease');
  assert.equal(await classifiedBy(recorder, '/apis/coordination.k8s.io/v1/namespaces/vigil/leases/vigil-node-node-a'), heartbeats, 'a heartbeat');
  assert.equal(await classifiedBy(operator, '/apis/vigil.io/v1alpha1/namespaces/vigil/cameras'), operatorLevel, 'the operator\'s list of Cameras');
  assert.equal(await classifiedBy(operator, '/api/v1/nodes'), operatorLevel, 'the operator\'s list of Nodes (cluster-scoped)');
  assert.equal(await classifiedBy(operator, '/apis/coordination.k8s.io/v1/namespaces/default/leases/x'), operatorLevel, 'a Lease of another namespace is not its leader Lease');
  assert.equal(await classifiedBy(recorder, '/apis/vigil.io/v1alpha1/namespaces/vigil/cameras'), builtIn, 'a recorder\'s list of Cameras stays with every ServiceAccount');
});
