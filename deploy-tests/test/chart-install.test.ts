// The chart against kube-apiserver: every rendered object accepted with strict field validation, and helm 4
// install / upgrade / uninstall by server-side apply (its default) and by client-side apply.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { ok, startKubeCluster, type KubeCluster } from '@vigil/testing/kube/kube-cluster';
import { waitUntil } from '@vigil/testing/processes';
import { CHART_DIR, REPO_ROOT, helmTemplate, parseObjects, VALUES_MATRIX, writeValues } from './support/chart.js';

const SERVICE_MONITOR_CRD = join(REPO_ROOT, 'deploy-tests/test/fixtures/servicemonitor-crd.yaml');

async function applyCrds(cluster: KubeCluster): Promise<void> {
  ok(await cluster.kubectl(['apply', '--server-side', '-f', join(CHART_DIR, 'crds'), '-f', SERVICE_MONITOR_CRD]), 'apply CRDs');
  ok(await cluster.kubectl(['wait', '--for=condition=Established', '--timeout=20s', 'crd/cameras.vigil.io', 'crd/recordernodes.vigil.io', 'crd/servicemonitors.monitoring.coreos.com']), 'CRDs established');
}

const get = async (cluster: KubeCluster, args: string[]) => ok(await cluster.kubectl(['-n', 'vigil', 'get', ...args]), args.join(' '));
const secret = async (cluster: KubeCluster, name: string, key: string) => Buffer.from(await get(cluster, ['secret', name, '-o', `jsonpath={.data.${key.replace('.', '\\.')}}`]), 'base64').toString('utf8');

test('every object of every values variant is accepted by server-side apply with strict field validation', async (t) => {
  const cluster = await startKubeCluster(t);
  await applyCrds(cluster);
  let i = 0;
  for (const [variant, values] of Object.entries(VALUES_MATRIX)) {
    const namespace = `variant-${++i}`;
    const rendered = await helmTemplate(t, values, { release: `vigil-${i}`, namespace });
    assert.equal(rendered.code, 0, rendered.stderr);
    ok(await cluster.kubectl(['create', 'namespace', namespace]), 'namespace');
    const applied = ok(await cluster.kubectl(['apply', '--server-side', '--validate=strict', '--field-manager=chart-test', '-f', '-'], { input: rendered.stdout }), `${variant}: apply`);
    const objects = parseObjects(rendered.stdout);
    assert.equal(applied.trim().split('\n').length, objects.length, `${variant}: one line per object\n${applied}`);
    // Every object is stored: one `kubectl get` per scope, compared by kind and name.
    const resource = (o: { kind: string; apiVersion: string }) => `${o.kind.toLowerCase()}${o.apiVersion.includes('/') ? `.${o.apiVersion.split('/')[0]}` : ''}`;
    // (The operator's Role for Events about RecorderNodes is in `default`.)
    const scopeOf = (o: (typeof objects)[number]) => (o.kind.startsWith('Cluster') || o.apiVersion.startsWith('flowcontrol.') ? '' : (o.metadata as { namespace?: string }).namespace ?? namespace);
    for (const scope of new Set(objects.map(scopeOf))) {
      const mine = objects.filter((o) => scopeOf(o) === scope);
      const expected = mine.map((o) => `${o.kind}/${o.metadata.name}`).sort();
      const args = scope === '' ? [] : ['-n', scope];
      const listed = ok(await cluster.kubectl([...args, 'get', [...new Set(mine.map(resource))].join(','), '-l', `app.kubernetes.io/instance=vigil-${i}`, '-o', 'jsonpath={range .items[*]}{.kind}/{.metadata.name}{"\\n"}{end}']), `${variant}: stored`);
      assert.deepEqual(listed.trim().split('\n').sort(), expected, `${variant}: every object stored`);
    }
  }
  // The check can fail: a field the API does not know is refused under strict validation.
  const wrong = await cluster.kubectl(['apply', '--server-side', '--validate=strict', '-n', 'variant-1', '-f', '-'], { input: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: typo\ndata: {}\nbinaryDta: {}\n' });
  assert.notEqual(wrong.code, 0);
  assert.match(wrong.stderr, /binaryDta/);
});

test('helm install (server-side apply), upgrade keeping generated secrets, and uninstall', async (t) => {
  const cluster = await startKubeCluster(t);
  await applyCrds(cluster);
  const values = { postgresql: { enabled: true }, ingress: { enabled: true, className: 'nginx', tls: { secretName: 'vigil-tls' } }, serviceMonitor: { enabled: true } };
  const file = await writeValues(cluster.dir, values);

  const installed = ok(await cluster.helm(['install', 'vigil', CHART_DIR, '-n', 'vigil', '--create-namespace', '-f', file]), 'install');
  assert.match(installed, /STATUS: deployed/);
  assert.match(installed, /kubectl -n vigil get cameras/);
  assert.match(installed, /TOKEN=\$\(kubectl -n vigil get secret vigil-admin-token/);
  // The real Deployment and ReplicaSet controllers make the operator's two Pods, which admission lets in (the process
  // kubelet binds them and, their image being unmapped here, runs placeholders).
  await waitUntil(async () => (await get(cluster, ['pods', '-l', 'app.kubernetes.io/component=operator,app.kubernetes.io/instance=vigil', '-o', 'name'])).split('\n').filter(Boolean).length === 2, 30_000, 'two operator Pods made by the ReplicaSet');
  const names = (await get(cluster, ['sts,svc,ing,cm,sa,role,rolebinding,pdb,servicemonitors', '-o', 'name'])).split('\n');
  // (no serviceaccount/vigil-recorder: each node's recorder gets an account of its own from the operator)
  for (const n of ['statefulset.apps/vigil-postgresql', 'service/vigil-api', 'service/vigil-postgresql', 'ingress.networking.k8s.io/vigil-api', 'configmap/vigil-recorder', 'configmap/vigil-operator-settings', 'serviceaccount/vigil-operator', 'role.rbac.authorization.k8s.io/vigil-recorder', 'poddisruptionbudget.policy/vigil-operator', 'servicemonitor.monitoring.coreos.com/vigil-recorder']) {
    assert.ok(names.includes(n), `${n} in ${names.join(' ')}`);
  }
  const managers = await get(cluster, ['cm', 'vigil-recorder', '--show-managed-fields', '-o', 'jsonpath={.metadata.managedFields[*].operation}']);
  assert.equal(managers, 'Apply', 'helm 4 applied server-side');
  const before = { admin: await secret(cluster, 'vigil-admin-token', 'token'), cluster: await secret(cluster, 'vigil-cluster-token', 'token'), db: await secret(cluster, 'vigil-postgresql', 'password') };
  assert.ok(before.admin.length >= 32);

  // A recorder setting changes the recorder ConfigMap only: the operator is not restarted (it rolls the recorders itself).
  ok(await cluster.helm(['upgrade', 'vigil', CHART_DIR, '-n', 'vigil', '-f', file, '--set', 'recorder.record.segmentSeconds=30']), 'upgrade 2');
  assert.match(await get(cluster, ['cm', 'vigil-recorder', '-o', 'jsonpath={.data.config\\.yaml}']), /segment_seconds: 30\n/);
  assert.equal(await get(cluster, ['deploy', 'vigil-operator', '-o', 'jsonpath={.metadata.generation}']), '1');
  const after = { admin: await secret(cluster, 'vigil-admin-token', 'token'), cluster: await secret(cluster, 'vigil-cluster-token', 'token'), db: await secret(cluster, 'vigil-postgresql', 'password') };
  assert.deepEqual(after, before, 'generated tokens and the database password survive an upgrade');
  assert.equal(await secret(cluster, 'vigil-database', 'url'), `postgres://vigil:${before.db}@vigil-postgresql:5432/vigil`);

  // A new image changes the settings: the operator Deployment rolls.
  ok(await cluster.helm(['upgrade', 'vigil', CHART_DIR, '-n', 'vigil', '-f', file, '--set', 'image.tag=0.1.1']), 'upgrade 3');
  assert.equal(await get(cluster, ['deploy', 'vigil-operator', '-o', 'jsonpath={.metadata.generation} {.spec.template.spec.containers[0].image}']), '2 vigil:0.1.1');
  assert.match(await get(cluster, ['cm', 'vigil-operator-settings', '-o', 'jsonpath={.data.settings\\.yaml}']), /image: vigil:0\.1\.1/);
  assert.match(ok(await cluster.helm(['history', 'vigil', '-n', 'vigil']), 'history'), /^3\s.*deployed/m);

  assert.match(ok(await cluster.helm(['uninstall', 'vigil', '-n', 'vigil', '--wait', '--timeout', '60s']), 'uninstall'), /release "vigil" uninstalled/);
  assert.equal(await get(cluster, ['deploy,sts,svc,ing,cm,secret,sa,role,rolebinding,pdb,servicemonitors', '-l', 'app.kubernetes.io/instance=vigil', '-o', 'name']), '');
  assert.equal(ok(await cluster.kubectl(['get', 'clusterrole,clusterrolebinding', '-l', 'app.kubernetes.io/instance=vigil', '-o', 'name']), 'cluster rbac'), '');
  assert.match(ok(await cluster.kubectl(['get', 'crd', 'cameras.vigil.io', '-o', 'name']), 'CRDs kept'), /cameras\.vigil\.io/, 'Cameras outlive an uninstall');
});

test('helm install and upgrade by client-side apply (--server-side=false) too', async (t) => {
  const cluster = await startKubeCluster(t);
  assert.match(ok(await cluster.helm(['install', 'vigil', CHART_DIR, '-n', 'vigil', '--create-namespace', '--server-side=false']), 'install'), /STATUS: deployed/);
  assert.equal(await get(cluster, ['cm', 'vigil-recorder', '--show-managed-fields', '-o', 'jsonpath={.metadata.managedFields[*].operation}']), 'Update');
  ok(await cluster.helm(['upgrade', 'vigil', CHART_DIR, '-n', 'vigil', '--set', 'recorder.logLevel=debug']), 'upgrade');
  assert.match(await get(cluster, ['cm', 'vigil-recorder', '-o', 'jsonpath={.data.config\\.yaml}']), /log_level: debug\n/);
  ok(await cluster.helm(['uninstall', 'vigil', '-n', 'vigil', '--wait']), 'uninstall');
  assert.equal(await get(cluster, ['all,cm,secret', '-l', 'app.kubernetes.io/instance=vigil', '-o', 'name']), '');
});
