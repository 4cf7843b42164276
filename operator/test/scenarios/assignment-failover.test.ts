// kubectl apply of the CRDs and 6 Cameras on 3 nodes → 2/2/2, RecorderNodes, Pods, Services, Ingresses;
// `kubectl get cameras`; one node silent → its cameras move 15–20 s after its last renew (not before), Events say so;
// it comes back → nothing moves back. The operator runs as its ServiceAccount with the chart's RBAC: no 403.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Camera } from '@vigil/crds';
import { waitUntil } from '@vigil/testing/processes';
import { applyCameras, assertNoForbidden, assertRecordersAllowed, byNode, lastRenewOf, sleep, startScenario, waitForCameras, waitForEvents } from '../support/scenario.js';

const NODES = ['node-a', 'node-b', 'node-c'];
const CAMERAS = ['cam-1', 'cam-2', 'cam-3', 'cam-4', 'cam-5', 'cam-6'];

test('assignment 2/2/2, recorder Pods, kubectl get cameras, failover in 15–20 s, nothing moves back', async (t) => {
  const { cluster, recorders, operator } = await startScenario(t, NODES.map((name) => ({ name })));
  await applyCameras(cluster, CAMERAS);

  // Every camera gets a node, two per node, and records.
  let cams = await waitForCameras(cluster, (cs) => cs.length === 6 && cs.every((c) => c.status?.phase === 'Recording'), 30_000, 'all cameras Recording');
  assert.deepEqual(Object.values(byNode(cams)).map((l) => l.length).sort(), [2, 2, 2]);
  for (const c of cams) {
    assert.equal(c.status?.url, `http://vigil-recorder-${c.status?.node}.vigil.svc:9997`);
    assert.equal(c.status?.observedGeneration, c.metadata.generation);
    assert.equal(c.status?.conditions?.find((x) => x.type === 'Assigned')?.status, 'True');
  }

  // RecorderNodes, Pods, Services and Ingresses.
  const rns = await cluster.recorderNodes();
  assert.deepEqual(rns.map((r) => [r.metadata.name, r.spec.member]).sort(), NODES.map((n) => [n, true]));
  await waitUntil(async () => (await cluster.recorderNodes()).every((r) => r.status?.online === true), 30_000, 'RecorderNodes online');
  const pods = (await cluster.core.listNamespacedPod({ namespace: cluster.namespace })).items;
  assert.deepEqual(pods.map((p) => [p.metadata?.name, p.spec?.nodeName]).sort(), NODES.map((n) => [`vigil-recorder-${n}`, n]));
  for (const pod of pods) {
    const c = pod.spec?.containers[0];
    // Owned by the release's recorder ConfigMap: deleting the release removes the Pods with no operator left.
    assert.deepEqual(pod.metadata?.ownerReferences?.map((o) => `${o.kind}/${o.name}`), ['ConfigMap/vigil-recorder']);
    assert.equal(pod.spec?.terminationGracePeriodSeconds, 30);
    const hostPath = pod.spec?.volumes?.find((v) => v.name === 'recordings')?.hostPath;
    assert.deepEqual([hostPath?.path, hostPath?.type], ['/var/lib/vigil/recordings', 'DirectoryOrCreate']);
    assert.equal(pod.spec?.volumes?.find((v) => v.name === 'config')?.configMap?.name, 'vigil-recorder');
    const env = Object.fromEntries((c?.env ?? []).map((e) => [e.name, e.value ?? JSON.stringify(e.valueFrom)]));
    assert.match(env.VIGIL_NODE_NAME ?? '', /spec\.nodeName/);
    assert.match(env.VIGIL_CLUSTER_NAMESPACE ?? '', /metadata\.namespace/);
    assert.equal(env.VIGIL_CLUSTER_ADVERTISE_URL, `http://${pod.metadata?.name}.vigil.svc:9997`);
    assert.equal(env.VIGIL_CLUSTER_PUBLIC_URL, `https://${pod.spec?.nodeName}.vigil.example.com`);
    assert.match(env.VIGIL_DATABASE_URL ?? '', /vigil-database/);
    assert.equal(c?.readinessProbe?.httpGet?.path, '/api/health/ready');
    assert.equal(c?.livenessProbe?.httpGet?.path, '/api/health/live');
  }
  const services = (await cluster.core.listNamespacedService({ namespace: cluster.namespace })).items;
  assert.deepEqual(services.map((s) => s.metadata?.name).sort(), NODES.map((n) => `vigil-recorder-${n}`));
  await waitUntil(async () => (await cluster.recorderNodes()).every((r) => r.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True'), 30_000, 'RecorderNodes Ready (fake kubelet)');

  // The probes' endpoints.
  for (const path of ['/healthz', '/readyz']) assert.equal((await fetch(`http://127.0.0.1:${operator.port}${path}`)).status, 200, path);

  // What the user sees.
  const table = await cluster.kubectl('get', 'cameras', '-n', cluster.namespace);
  const [header, ...rows] = table.trim().split('\n');
  assert.match(header ?? '', /^NAME\s+NODE\s+PHASE\s+AGE$/);
  assert.equal(rows.length, 6);
  for (const row of rows) assert.match(row, /^cam-\d\s+node-[abc]\s+Recording\s+\S+$/);
  assert.match(await cluster.kubectl('get', 'cameras', '-n', cluster.namespace, '-o', 'wide'), /URL[\s\S]*http:\/\/vigil-recorder-node-/);
  assert.match(await cluster.kubectl('get', 'rn'), /NAME\s+ONLINE\s+MEMBER\s+CAMERAS\s+VERSION\s+AGE/);

  // node-a goes silent.
  const before = byNode(cams);
  const victims = before['node-a'] ?? [];
  assert.equal(victims.length, 2);
  recorders.get('node-a')!.stopHeartbeat();
  const lastRenew = await lastRenewOf(cluster, 'node-a');
  // Not before 15 s: still there at 14.5 s.
  await sleep(Math.max(0, lastRenew + 14_500 - Date.now()));
  cams = await cluster.cameras();
  for (const name of victims) assert.equal(cams.find((c) => c.metadata.name === name)?.status?.node, 'node-a', `${name} moved before 15 s`);
  cams = await waitForCameras(cluster, (cs) => victims.every((v) => { const n = cs.find((c) => c.metadata.name === v)?.status?.node; return n !== undefined && n !== 'node-a'; }), 10_000, 'the silent node\'s cameras to move');
  const observed = (Date.now() - lastRenew) / 1000;
  assert.ok(observed <= 21, `moved ${observed.toFixed(1)} s after the last renew (polled)`);

  // Events say so, with the time of the move.
  const failovers = (await waitForEvents(cluster, (es) => es.filter((e) => e.reason === 'Failover').length >= 2, 'Failover Events')).filter((e) => e.reason === 'Failover');
  for (const name of victims) {
    const ev = failovers.find((e) => e.involvedObject.name === name);
    assert.ok(ev, `a Failover Event for ${name}`);
    assert.match(ev.message ?? '', /moved from node-a to node-[bc]: node-a has been silent for 1[5-9]\.\d s/);
    const at = new Date(ev.eventTime ?? ev.lastTimestamp ?? 0).getTime();
    const seconds = (at - lastRenew) / 1000;
    t.diagnostic(`failover of ${name}: ${seconds.toFixed(2)} s after the last renew`);
    assert.ok(seconds >= 15 && seconds <= 20, `reassigned ${seconds.toFixed(2)} s after the last renew`);
  }
  await waitForEvents(cluster, (es) => es.some((e) => e.reason === 'NodeSilent' && e.involvedObject.name === 'node-a'), 'a NodeSilent Event on the RecorderNode');
  const after = byNode(cams);
  assert.equal(after['node-a'], undefined);
  assert.deepEqual([after['node-b']?.length, after['node-c']?.length], [3, 3]);
  const metrics = await operator.metrics();
  assert.equal(metrics.value('vigil_operator_camera_moves_total', { kind: 'failover' }), 2);
  assert.equal(metrics.value('vigil_operator_failover_seconds_count'), 2);

  // node-a comes back: nothing moves back.
  recorders.get('node-a')!.startHeartbeat();
  await recorders.get('node-a')!.renew();
  await waitUntil(async () => (await cluster.recorderNodes()).find((r) => r.metadata.name === 'node-a')?.status?.online === true, 5000, 'node-a online again');
  await sleep(3000);
  const settled = await cluster.cameras();
  assert.deepEqual(byNode(settled), after);
  assert.ok(settled.every((c: Camera) => c.status?.phase === 'Recording'));
  assertNoForbidden(operator);
  assertRecordersAllowed(recorders.values());
});
