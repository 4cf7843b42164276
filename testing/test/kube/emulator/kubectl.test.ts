// kubectl 1.35 against the emulator: apply (client- and server-side), get with printer columns, get -w, describe, wait, delete, errors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { kubectlPath } from '../../../src/kube/tools.js';
import { waitUntil } from '../../../src/processes.js';
import { FIXTURES, ok, startEmulatorFixture } from './emulator-fixture.js';

const CAMERA_CRD = join(FIXTURES, 'camera-crd.yaml');
const CAMERA = join(FIXTURES, 'camera-porch.yaml');

test('kubectl applies a CRD and a Camera, shows its printer columns, sees a change with get -w, describes, waits for and deletes it', async (t) => {
  const f = await startEmulatorFixture(t);
  assert.match(ok(await f.kubectl(['apply', '-f', CAMERA_CRD]), 'apply crd'), /customresourcedefinition.apiextensions.k8s.io\/cameras.vigil.io created/);
  ok(await f.kubectl(['wait', '--for=condition=Established', 'crd/cameras.vigil.io', '--timeout=30s']), 'wait established');
  assert.match(ok(await f.kubectl(['apply', '-f', CAMERA]), 'apply camera'), /camera.vigil.io\/porch created/);

  const table = ok(await f.kubectl(['get', 'cameras']), 'get cameras');
  assert.match(table, /^NAME\s+NODE\s+PHASE\s+AGE\n/);
  assert.doesNotMatch(table, /URL/);
  assert.match(table, /^porch\s+\d+s\n/m);
  assert.match(ok(await f.kubectl(['get', 'cam', '-o', 'wide']), 'get -o wide'), /^NAME\s+NODE\s+PHASE\s+AGE\s+URL\n/);

  // A second apply that changes the spec is a patch: "configured", a new generation, defaults kept.
  const changed = (await readFile(CAMERA, 'utf8')).replace('segmentSeconds: 60', 'segmentSeconds: 30');
  assert.match(ok(await f.kubectl(['apply', '-f', '-'], { input: changed }), 'second apply'), /camera.vigil.io\/porch configured/);
  assert.equal(ok(await f.kubectl(['get', 'camera', 'porch', '-o', 'jsonpath={.spec.record.segmentSeconds} {.metadata.generation} {.spec.audio}']), 'get jsonpath'), '30 2 auto');
  assert.match(ok(await f.kubectl(['apply', '-f', '-'], { input: changed }), 'same apply'), /camera.vigil.io\/porch unchanged/);

  // get -w prints the current row, then a row for the status change.
  const watcher = spawn(kubectlPath(), ['get', 'cameras', '-w'], { env: { ...process.env, HOME: f.dir, KUBECONFIG: f.kubeconfig } });
  t.after(() => watcher.kill());
  let watched = '';
  watcher.stdout.on('data', (d: Buffer) => { watched += d.toString(); });
  await waitUntil(() => /^porch\s/m.test(watched), 30_000, 'kubectl get -w to print the camera');
  ok(await f.kubectl(['patch', 'camera', 'porch', '--subresource=status', '--type=merge', '-p', '{"status":{"node":"n1","phase":"Recording","url":"http://n1:9997"}}']), 'patch status');
  await waitUntil(() => /^porch\s+n1\s+Recording\s/m.test(watched), 30_000, 'kubectl get -w to print the change');
  watcher.kill();

  assert.match(ok(await f.kubectl(['get', 'cam', '-o', 'wide']), 'get -o wide'), /^porch\s+n1\s+Recording\s+\S+\s+http:\/\/n1:9997\n/m);
  ok(await f.kubectl(['wait', 'camera/porch', '--for=jsonpath={.status.phase}=Recording', '--timeout=30s']), 'wait jsonpath');

  const uid = ok(await f.kubectl(['get', 'camera', 'porch', '-o', 'jsonpath={.metadata.uid}']), 'uid');
  const event = {
    apiVersion: 'v1', kind: 'Event',
    metadata: { name: 'porch.assigned', namespace: 'default' },
    involvedObject: { apiVersion: 'vigil.io/v1alpha1', kind: 'Camera', name: 'porch', namespace: 'default', uid },
    reason: 'Assigned', message: 'camera porch assigned to node n1', type: 'Normal',
    source: { component: 'vigil-operator' }, firstTimestamp: new Date().toISOString(), lastTimestamp: new Date().toISOString(), count: 1,
  };
  ok(await f.kubectl(['create', '-f', '-'], { input: JSON.stringify(event) }), 'create event');
  const described = ok(await f.kubectl(['describe', 'camera', 'porch']), 'describe');
  assert.match(described, /^Name:\s+porch$/m);
  assert.match(described, /Segment Seconds:\s+30/);
  assert.match(described, /Normal\s+Assigned\s+\S+\s+vigil-operator\s+camera porch assigned to node n1/);

  assert.match(ok(await f.kubectl(['delete', 'camera', 'porch']), 'delete'), /camera.vigil.io "porch" deleted/);
  const missing = await f.kubectl(['get', 'camera', 'porch']);
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /Error from server \(NotFound\): cameras.vigil.io "porch" not found/);
});

test('kubectl apply --server-side creates, merges, reports conflicts with another manager and forces them', async (t) => {
  const f = await startEmulatorFixture(t);
  assert.match(ok(await f.kubectl(['apply', '--server-side', '-f', CAMERA_CRD]), 'ssa crd'), /serverside-applied/);
  ok(await f.kubectl(['wait', '--for=condition=Established', 'crd/cameras.vigil.io', '--timeout=30s']), 'wait established');
  assert.match(ok(await f.kubectl(['apply', '--server-side', '-f', CAMERA]), 'ssa camera'), /camera.vigil.io\/porch serverside-applied/);
  const changed = (await readFile(CAMERA, 'utf8')).replace('segmentSeconds: 60', 'segmentSeconds: 45');
  ok(await f.kubectl(['apply', '--server-side', '-f', '-'], { input: changed }), 'second ssa');
  const managed = JSON.parse(ok(await f.kubectl(['get', 'camera', 'porch', '-o', 'json', '--show-managed-fields']), 'get json')) as { spec: { record: { segmentSeconds: number } }; metadata: { managedFields: Array<{ manager: string; operation: string }> } };
  assert.equal(managed.spec.record.segmentSeconds, 45);
  assert.deepEqual(managed.metadata.managedFields.map((m) => `${m.manager}/${m.operation}`), ['kubectl/Apply']);

  const other = changed.replace('segmentSeconds: 45', 'segmentSeconds: 10');
  const conflict = await f.kubectl(['apply', '--server-side', '--field-manager=gitops', '-f', '-'], { input: other });
  assert.notEqual(conflict.code, 0);
  assert.match(conflict.stderr, /conflict with "kubectl".*\.spec\.record\.segmentSeconds/s);
  ok(await f.kubectl(['apply', '--server-side', '--field-manager=gitops', '--force-conflicts', '-f', '-'], { input: other }), 'forced ssa');
  assert.equal(ok(await f.kubectl(['get', 'camera', 'porch', '-o', 'jsonpath={.spec.record.segmentSeconds}']), 'get'), '10');
});

test('kubectl manages a Deployment, a ConfigMap and a Secret: apply, change, rollout status, describe, wait, delete', async (t) => {
  const f = await startEmulatorFixture(t);
  const manifest = await readFile(join(FIXTURES, 'web.yaml'), 'utf8');
  const created = ok(await f.kubectl(['apply', '-f', '-'], { input: manifest }), 'apply');
  assert.match(created, /deployment.apps\/web created/);
  assert.match(created, /configmap\/web-config created/);
  assert.match(created, /secret\/web-secret created/);
  ok(await f.kubectl(['rollout', 'status', 'deployment/web', '--timeout=30s']), 'rollout status');
  ok(await f.kubectl(['wait', 'deployment/web', '--for=condition=Available', '--timeout=30s']), 'wait available');
  const listed = ok(await f.kubectl(['get', 'deploy,cm,secret', '-o', 'wide']), 'get');
  assert.match(listed, /deployment.apps\/web\s+2\/2\s+2\s+2\s+\S+\s+web,sidecar\s+nginx:1.27,busybox:1.36\s+app=web/);
  assert.match(listed, /configmap\/web-config\s+2\s/);
  assert.match(listed, /secret\/web-secret\s+Opaque\s+1\s/);
  assert.equal(Buffer.from(ok(await f.kubectl(['get', 'secret', 'web-secret', '-o', 'jsonpath={.data.password}']), 'secret'), 'base64').toString(), 'hunter2');

  // Strategic merge: a container removed from the file and an env value changed, the other env entry kept in place.
  const changed = manifest.replace(/\n {8}- name: sidecar\n {10}image: busybox:1.36/, '').replace('value: "2"', 'value: "3"').replace('b: "2"', 'b: "20"');
  const applied = ok(await f.kubectl(['apply', '-f', '-'], { input: changed }), 'second apply');
  assert.match(applied, /deployment.apps\/web configured/);
  assert.match(applied, /configmap\/web-config configured/);
  const deployment = JSON.parse(ok(await f.kubectl(['get', 'deployment', 'web', '-o', 'json']), 'get json')) as { metadata: { generation: number }; spec: { template: { spec: { containers: Array<{ name: string; env?: unknown }> } } }; status: { observedGeneration: number } };
  assert.deepEqual(deployment.spec.template.spec.containers.map((c) => c.name), ['web']);
  assert.deepEqual(deployment.spec.template.spec.containers[0]?.env, [{ name: 'A', value: '1' }, { name: 'B', value: '3' }]);
  assert.equal(deployment.metadata.generation, 2);
  await waitUntil(async () => ok(await f.kubectl(['get', 'deployment', 'web', '-o', 'jsonpath={.status.observedGeneration}']), 'og') === '2', 30_000, 'the new generation observed');
  assert.match(ok(await f.kubectl(['describe', 'deployment', 'web']), 'describe'), /Replicas:\s+2 desired \| 2 updated \| 2 total \| 2 available \| 0 unavailable/);
  assert.equal(ok(await f.kubectl(['get', 'cm', 'web-config', '-o', 'jsonpath={.data.b}']), 'cm'), '20');

  assert.match(ok(await f.kubectl(['delete', '-f', '-'], { input: changed }), 'delete'), /deployment.apps "web" deleted/);
  for (const [kind, name] of [['deployment', 'deployments.apps'], ['configmap', 'configmaps'], ['secret', 'secrets']] as const) {
    const missing = await f.kubectl(['get', kind, `web${kind === 'deployment' ? '' : kind === 'configmap' ? '-config' : '-secret'}`]);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, new RegExp(`Error from server \\(NotFound\\): ${name.replace('.', '\\.')} "web(-config|-secret)?" not found`));
  }
});

test('strict field validation rejects unknown fields of CRDs and built-in kinds, and invalid values, with the real messages', async (t) => {
  const f = await startEmulatorFixture(t);
  ok(await f.kubectl(['apply', '-f', CAMERA_CRD]), 'apply crd');
  ok(await f.kubectl(['wait', '--for=condition=Established', 'crd/cameras.vigil.io', '--timeout=30s']), 'wait established');
  const camera = await readFile(CAMERA, 'utf8');
  const unknown = await f.kubectl(['apply', '-f', '-'], { input: camera.replace('  source:', '  bogus: 1\n  source:') });
  assert.equal(unknown.code, 1);
  assert.match(unknown.stderr, /Camera in version "v1alpha1" cannot be handled as a Camera: strict decoding error: unknown field "spec.bogus"/);

  const invalid = await f.kubectl(['apply', '-f', '-'], { input: camera.replace('segmentSeconds: 60', 'segmentSeconds: 0') });
  assert.equal(invalid.code, 1);
  assert.match(invalid.stderr, /The Camera "porch" is invalid: spec.record.segmentSeconds: Invalid value: 0: spec.record.segmentSeconds in body should be greater than or equal to 1/);

  const deployment = (await readFile(join(FIXTURES, 'web.yaml'), 'utf8')).replace('image: nginx:1.27', 'image: nginx:1.27\n          imagePolicy: never');
  const builtin = await f.kubectl(['apply', '-f', '-'], { input: deployment });
  assert.equal(builtin.code, 1);
  assert.match(builtin.stderr, /Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: unknown field "spec.template.spec.containers\[0\].imagePolicy"/);

  // Warn (the server's default) keeps going and says what it dropped.
  const warned = await f.kubectl(['apply', '--validate=warn', '-f', '-'], { input: deployment });
  assert.equal(warned.code, 0, warned.stderr);
  assert.match(warned.stderr, /unknown field "spec.template.spec.containers\[0\].imagePolicy"/);
});

test('kubectl apply --server-side takes over what it applied client-side, but conflicts with a kubectl scale since', async (t) => {
  const f = await startEmulatorFixture(t);
  const manifest = await readFile(join(FIXTURES, 'web.yaml'), 'utf8');
  ok(await f.kubectl(['apply', '-f', '-'], { input: manifest }), 'client-side apply');
  ok(await f.kubectl(['apply', '--server-side', '-f', '-'], { input: manifest.replace('replicas: 2', 'replicas: 4') }), 'server-side apply after client-side apply');
  assert.equal(ok(await f.kubectl(['get', 'deploy', 'web', '-o', 'jsonpath={.spec.replicas}']), 'replicas'), '4');
  ok(await f.kubectl(['scale', 'deployment', 'web', '--replicas=7']), 'scale');
  const conflict = await f.kubectl(['apply', '--server-side', '-f', '-'], { input: manifest.replace('replicas: 2', 'replicas: 5') });
  assert.notEqual(conflict.code, 0);
  assert.match(conflict.stderr, /Apply failed with 1 conflict: conflict with "kubectl".*: \.spec\.replicas/);
  assert.equal(ok(await f.kubectl(['get', 'deploy', 'web', '-o', 'jsonpath={.spec.replicas}']), 'replicas'), '7');
});
