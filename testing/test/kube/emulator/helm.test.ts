// helm 4 against the emulator: lint, install (server-side apply, protobuf release Secrets), upgrade, client-side install and upgrade, uninstall.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { FIXTURES, ok, startEmulatorFixture } from './emulator-fixture.js';

const CHART = join(FIXTURES, 'chart');

test('helm lints, installs (server-side apply), upgrades and uninstalls a chart with a CRD, a Deployment, RBAC and a ConfigMap', async (t) => {
  const f = await startEmulatorFixture(t);
  assert.match(ok(await f.helm(['lint', CHART]), 'lint'), /1 chart\(s\) linted, 0 chart\(s\) failed/);

  const installed = ok(await f.helm(['install', 'demo', CHART, '--wait', '--timeout', '60s']), 'install');
  assert.match(installed, /STATUS: deployed/);
  assert.match(ok(await f.kubectl(['get', 'crd', 'cameras.vigil.io']), 'crd'), /cameras.vigil.io/);
  const objects = ok(await f.kubectl(['get', 'deploy,cm,sa,svc,role,rolebinding', '-o', 'name']), 'objects');
  for (const name of ['deployment.apps/demo-operator', 'configmap/demo-config', 'serviceaccount/demo-operator', 'service/demo-operator', 'role.rbac.authorization.k8s.io/demo-operator', 'rolebinding.rbac.authorization.k8s.io/demo-operator']) {
    assert.ok(objects.split('\n').includes(name), `${name} in ${objects}`);
  }
  assert.match(ok(await f.kubectl(['get', 'clusterrole,clusterrolebinding', 'demo-nodes', '-o', 'name']), 'cluster rbac'), /clusterrole.rbac.authorization.k8s.io\/demo-nodes/);
  // The release record is the Secret helm wrote as protobuf.
  assert.match(ok(await f.kubectl(['get', 'secret', '-l', 'owner=helm,name=demo', '-o', 'jsonpath={.items[*].metadata.name} {.items[*].type}']), 'release secret'), /^sh.helm.release.v1.demo.v1 helm.sh\/release.v1$/);
  const managers = ok(await f.kubectl(['get', 'configmap', 'demo-config', '-o', 'jsonpath={.metadata.managedFields[*].manager}/{.metadata.managedFields[*].operation}', '--show-managed-fields']), 'managers');
  assert.equal(managers, 'helm/Apply');

  const upgraded = ok(await f.helm(['upgrade', 'demo', CHART, '--set', 'greeting=bye', '--set', 'replicas=2', '--wait', '--timeout', '60s']), 'upgrade');
  assert.match(upgraded, /REVISION: 2/);
  assert.equal(ok(await f.kubectl(['get', 'configmap', 'demo-config', '-o', 'jsonpath={.data.greeting}']), 'cm'), 'bye');
  assert.equal(ok(await f.kubectl(['get', 'deploy', 'demo-operator', '-o', 'jsonpath={.spec.replicas} {.status.readyReplicas}']), 'deploy'), '2 2');
  const history = ok(await f.helm(['history', 'demo']), 'history');
  assert.match(history, /^1\s.*superseded/m);
  assert.match(history, /^2\s.*deployed/m);
  assert.match(ok(await f.helm(['list']), 'list'), /^demo\s+default\s+2\s.*deployed/m);

  assert.match(ok(await f.helm(['uninstall', 'demo', '--wait', '--timeout', '60s']), 'uninstall'), /release "demo" uninstalled/);
  assert.equal(ok(await f.kubectl(['get', 'deploy,cm,sa,svc,role,rolebinding', '-l', 'app.kubernetes.io/instance=demo', '-o', 'name']), 'left'), '');
  assert.equal((await f.kubectl(['get', 'deployment', 'demo-operator'])).code, 1);
  assert.equal(ok(await f.kubectl(['get', 'secret', '-l', 'owner=helm', '-o', 'name']), 'secrets'), '');
  // Helm keeps CRDs from crds/ on uninstall, as on a real cluster.
  assert.match(ok(await f.kubectl(['get', 'crd', 'cameras.vigil.io', '-o', 'name']), 'crd kept'), /cameras.vigil.io/);
});

test('helm installs and upgrades with client-side apply (three-way merge patches) too', async (t) => {
  const f = await startEmulatorFixture(t);
  assert.match(ok(await f.helm(['install', 'demo', CHART, '--server-side=false', '--namespace', 'vigil', '--create-namespace', '--wait', '--timeout', '60s']), 'install'), /STATUS: deployed/);
  assert.equal(ok(await f.kubectl(['-n', 'vigil', 'get', 'rolebinding', 'demo-operator', '-o', 'jsonpath={.subjects[0].namespace}']), 'binding'), 'vigil');
  ok(await f.helm(['upgrade', 'demo', CHART, '--namespace', 'vigil', '--set', 'image=registry.example/vigil/recorder:1.1.0', '--wait', '--timeout', '60s']), 'upgrade');
  assert.equal(ok(await f.kubectl(['-n', 'vigil', 'get', 'deploy', 'demo-operator', '-o', 'jsonpath={.spec.template.spec.containers[0].image} {.metadata.generation}']), 'image'), 'registry.example/vigil/recorder:1.1.0 2');
  ok(await f.helm(['uninstall', 'demo', '--namespace', 'vigil', '--wait']), 'uninstall');
  assert.equal(ok(await f.kubectl(['-n', 'vigil', 'get', 'all', '-o', 'name']), 'left'), '');
});

test('helm renders the optional parts by values and by what the cluster serves: StatefulSet, PDB, Ingress, ServiceMonitor once its CRD exists', async (t) => {
  const f = await startEmulatorFixture(t);
  ok(await f.helm(['install', 'demo', CHART, '--wait', '--timeout', '60s']), 'install');
  assert.match(ok(await f.kubectl(['get', 'pdb,ingress', '-o', 'name']), 'pdb and ingress'), /poddisruptionbudget.policy\/demo-operator\ningress.networking.k8s.io\/demo/);
  assert.equal(ok(await f.kubectl(['get', 'statefulsets', '-o', 'name']), 'no sts'), '');
  assert.equal((await f.kubectl(['get', 'servicemonitors'])).code, 1, 'no ServiceMonitor kind yet');

  ok(await f.kubectl(['apply', '-f', join(FIXTURES, 'servicemonitor-crd.yaml')]), 'servicemonitor crd');
  ok(await f.kubectl(['wait', '--for=condition=Established', 'crd/servicemonitors.monitoring.coreos.com', '--timeout=30s']), 'established');
  ok(await f.helm(['upgrade', 'demo', CHART, '--set', 'postgresql.enabled=true', '--wait', '--timeout', '60s']), 'upgrade');
  assert.match(ok(await f.kubectl(['get', 'servicemonitor', 'demo-operator', '-o', 'jsonpath={.spec.endpoints[0].path}']), 'servicemonitor'), /^\/metrics$/);
  assert.match(ok(await f.kubectl(['get', 'sts']), 'sts'), /^demo-postgresql\s+1\/1\s/m);
  ok(await f.helm(['uninstall', 'demo', '--wait', '--timeout', '60s']), 'uninstall');
  assert.equal(ok(await f.kubectl(['get', 'sts,pdb,ingress,servicemonitors', '-o', 'name']), 'left'), '');
});
