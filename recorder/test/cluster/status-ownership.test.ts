// Against kube-apiserver, with a real vigil-operator (started with a non-default --node-silence) and the
// recorder's own cluster parts running as the node's ServiceAccount: the Camera status both write — the operator its
// assignment, the recorder its Recording report, over and over at the same time — keeps both writers' fields with no
// conflict on either side; and the recorder judges a silent node by the operator's silence rule, not its own.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Camera } from '@vigil/crds';
import { startTestCluster } from '@vigil/testing/kube/test-cluster';
import { startOperator } from '@vigil/testing/kube/operator-process';
import { waitUntil } from '@vigil/testing/processes';
import { clusterMetrics } from '../../src/cluster/cluster-metrics.js';
import { ClusterLookups } from '../../src/cluster/cluster-lookups.js';
import { ClusterView } from '../../src/cluster/cluster-view.js';
import { Heartbeat } from '../../src/cluster/heartbeat.js';
import { connectToKubernetes, kubeClock } from '../../src/cluster/kube-connection.js';
import { RecordingReporter } from '../../src/cluster/recording-reporter.js';
import { systemClock } from '../../src/util/clock.js';
import { testLogger } from '../support/fakes.js';

/** Each side's fields of a Camera status, by who manages them (metadata.managedFields of the status subresource). */
function owners(cam: Camera & { metadata: { managedFields?: Array<{ manager: string; subresource?: string; fieldsV1?: unknown }> } }): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of cam.metadata.managedFields ?? []) {
    if (e.subresource !== 'status') continue;
    // The status's own fields and its condition entries (a condition's observedGeneration is not the status's).
    const status = ((e.fieldsV1 ?? {}) as Record<string, Record<string, unknown> | undefined>)['f:status'] ?? {};
    const conditions = (status['f:conditions'] ?? {}) as Record<string, unknown>;
    for (const field of ['f:node', 'f:phase', 'f:observedGeneration', 'f:recordingNode']) if (field in status) out[field] = e.manager;
    for (const key of ['k:{"type":"Assigned"}', 'k:{"type":"Recording"}']) if (key in conditions) out[key] = e.manager;
  }
  return out;
}

test('operator and recorder write one Camera status at once and both survive; /cluster/metrics follows --node-silence', { timeout: 180_000 }, async (t) => {
  const cluster = await startTestCluster(t);
  for (const n of ['node-a', 'node-b']) await cluster.addNode(n);
  const operator = await startOperator(t, cluster, 'op-1', ['--node-silence', '6s']);
  const { log, text: recorderLog } = testLogger('info');
  const parts = async (node: string) => {
    const { path } = await cluster.nodeKubeconfig(node);
    const { client, namespace } = connectToKubernetes({ KUBECONFIG: path }, cluster.namespace, 'test');
    t.after(() => client.close());
    const view = new ClusterView(client, namespace, node, log, kubeClock(systemClock));
    view.start();
    t.after(() => view.stop());
    const heartbeat = new Heartbeat({ client, namespace, nodeName: node, clock: systemClock, log, report: () => ({ url: `http://${node}.test:9997`, version: '9.9.9', cameras: 1 }) });
    heartbeat.start();
    t.after(() => heartbeat.stop());
    return { client, view, heartbeat, lookups: new ClusterLookups(client, namespace, systemClock) };
  };
  const a = await parts('node-a');
  const b = await parts('node-b');
  await waitUntil(() => a.view.synced && b.view.synced, 10_000, 'the caches list');
  await cluster.custom.createNamespacedCustomObject({ group: 'vigil.io', version: 'v1alpha1', namespace: cluster.namespace, plural: 'cameras', body: { apiVersion: 'vigil.io/v1alpha1', kind: 'Camera', metadata: { name: 'door' }, spec: { source: 'rtsp://192.0.2.1/door', nodeName: 'node-a' } } });

  // The recorder of node-a reports, every 20 ms, a report that flips between recording and not.
  let writing = true;
  const reporter = new RecordingReporter({ client: a.client, view: a.view, nodeName: 'node-a', probe: { writing: () => writing }, clock: systemClock, log, unavailableAfterMs: 0, tickMs: 20 });
  reporter.start();
  t.after(() => reporter.stop());
  await waitUntil(async () => (await cluster.camera('door')).status?.phase === 'Recording', 20_000, 'door Recording on node-a');

  // Meanwhile the user edits the Camera again and again: the operator writes observedGeneration and Assigned each time.
  let generation = 0;
  for (let i = 0; i < 15; i++) {
    writing = !writing;
    const patched = (await cluster.custom.patchNamespacedCustomObject({ group: 'vigil.io', version: 'v1alpha1', namespace: cluster.namespace, plural: 'cameras', name: 'door', body: [{ op: 'replace', path: '/spec/ptz', value: i % 2 === 0 }] })) as Camera;
    generation = patched.metadata.generation ?? 0;
    await new Promise((r) => setTimeout(r, 60));
  }
  writing = true;
  let cam: Camera | undefined;
  await waitUntil(async () => {
    cam = await cluster.camera('door');
    const s = cam.status;
    return s?.observedGeneration === generation && s.conditions?.find((c) => c.type === 'Assigned')?.observedGeneration === generation
      && s.conditions?.find((c) => c.type === 'Recording')?.status === 'True' && s.recordingNode === 'node-a' && s.phase === 'Recording';
  }, 20_000, 'the last word of both writers in the status');
  assert.deepEqual(owners(cam as never), {
    'f:node': 'vigil-operator', 'f:phase': 'vigil-operator', 'f:observedGeneration': 'vigil-operator', 'k:{"type":"Assigned"}': 'vigil-operator',
    'k:{"type":"Recording"}': 'vigil-recorder-node-a', 'f:recordingNode': 'vigil-recorder-node-a',
  });
  const conflicts = operator.lines.filter((l) => /conflict/i.test(String(l.msg)));
  assert.equal(conflicts.length, 0, `the operator met no conflict: ${JSON.stringify(conflicts)}`);
  // (Without the timestamps, whose milliseconds can read "409".)
  assert.doesNotMatch(recorderLog().replace(/"time":"[^"]*"/g, ''), /cannot report|409|Conflict/, 'the recorder met no conflict');
  // What the recorder reports on its Lease is the RecorderNode's status (written by the operator alone).
  await waitUntil(async () => (await cluster.recorderNodes()).find((r) => r.metadata.name === 'node-a')?.status?.url === 'http://node-a.test:9997', 10_000, 'the reported URL on the RecorderNode');

  // --node-silence 6s, published on the operator's Lease: node-b silent is offline for the recorder as for the operator.
  await waitUntil(async () => (await a.lookups.nodeSilenceMs()) === 6000, 10_000, 'the silence rule read from the operator Lease', 100);
  b.heartbeat.stop();
  await new Promise((r) => setTimeout(r, 500)); // a renewal already under way lands
  const lease = await cluster.coordination.readNamespacedLease({ name: 'vigil-node-node-b', namespace: cluster.namespace });
  const lastRenew = new Date(lease.spec?.renewTime ?? 0).getTime();
  const online = async () => (await clusterMetrics(a.view, a.lookups, () => Date.now())).nodes.find((n) => n.node_name === 'node-b')?.online;
  await new Promise((r) => setTimeout(r, Math.max(0, lastRenew + 4500 - Date.now())));
  assert.equal(await online(), true, 'online 4.5 s after the last renewal');
  await waitUntil(async () => (await cluster.recorderNodes()).find((r) => r.metadata.name === 'node-b')?.status?.online === false, 10_000, 'the operator: node-b offline');
  const operatorSaw = (Date.now() - lastRenew) / 1000;
  assert.equal(await online(), false, `/cluster/metrics agrees with the operator ${operatorSaw.toFixed(1)} s after the last renewal (15 s would still say online)`);
  assert.ok(operatorSaw < 10, `offline after ${operatorSaw.toFixed(1)} s`);
  assert.deepEqual(operator.forbidden(), []);
});
