// A recorder's part of its RecorderNode status (url, version, cameras) is written as soon as the RecorderNode appears
// or loses it, against the emulated API server with the chart's recorder RBAC — not a tick later.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pino } from 'pino';
import { startTestCluster } from '@vigil/testing/kube/test-cluster';
import { waitUntil } from '@vigil/testing/processes';
import { ClusterView } from '../../src/cluster/cluster-view.js';
import { connectToKubernetes, kubeClock } from '../../src/cluster/kube-connection.js';
import { NodeStatusReporter } from '../../src/cluster/node-status-reporter.js';
import { systemClock } from '../../src/util/clock.js';

const NODE = 'node-x';
const URL_OF_NODE = 'http://10.0.0.7:9997';
/** Far longer than the test waits: only the reaction to the RecorderNode's changes can write in time. */
const TICK_MS = 600_000;

test('the URL is written when the RecorderNode appears, and written again at once when a status rewrite drops it', { timeout: 60_000 }, async (t) => {
  const cluster = await startTestCluster(t);
  const log = pino({ level: 'silent' });
  const { client, namespace } = connectToKubernetes({ KUBECONFIG: cluster.recorderKubeconfig }, cluster.namespace, 'test');
  const view = new ClusterView(client, namespace, log, kubeClock(systemClock));
  view.start();
  t.after(() => view.stop());
  await waitUntil(() => view.synced, 10_000, 'the caches list');
  const reporter = new NodeStatusReporter({ client, view, nodeName: NODE, clock: systemClock, log, tickMs: TICK_MS, report: () => ({ url: URL_OF_NODE, publicUrl: undefined, version: '1.2.3', cameras: 4 }) });
  reporter.start();
  t.after(() => reporter.stop());

  // The operator creates the RecorderNode after the recorder started (the usual order on a new Node).
  const group = { group: 'vigil.io', version: 'v1alpha1', plural: 'recordernodes' };
  await cluster.custom.createClusterCustomObject({ ...group, body: { apiVersion: 'vigil.io/v1alpha1', kind: 'RecorderNode', metadata: { name: NODE }, spec: { nodeName: NODE } } });
  const statusOf = async (): Promise<Record<string, unknown> | undefined> =>
    ((await cluster.custom.getClusterCustomObject({ ...group, name: NODE })) as { status?: Record<string, unknown> }).status;
  await waitUntil(async () => (await statusOf())?.['url'] === URL_OF_NODE, 5_000, 'the URL on the new RecorderNode');
  assert.deepEqual({ ...(await statusOf()) }, { url: URL_OF_NODE, version: '1.2.3', cameras: 4 });

  // Another writer replaces the status without the recorder's fields (its own, the operator's, are kept by it).
  const current = (await cluster.custom.getClusterCustomObject({ ...group, name: NODE })) as Record<string, unknown>;
  await cluster.custom.replaceClusterCustomObjectStatus({ ...group, name: NODE, body: { ...current, status: { online: true } } });
  await waitUntil(async () => (await statusOf())?.['url'] === URL_OF_NODE, 5_000, 'the URL written again');
  assert.deepEqual({ ...(await statusOf()) }, { online: true, url: URL_OF_NODE, version: '1.2.3', cameras: 4 });
});
