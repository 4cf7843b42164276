// Events are written a few at a time from a bounded queue: a burst (5,000 cameras assigned at once) never becomes
// thousands of requests at once, and past 1,000 waiting a new Event is dropped and counted, never held in memory.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pino } from 'pino';
import { KubeClient, loadKubeConfig, Resources, systemClock, type CoreEvent, type KubeObject } from '@vigil/kube';
import { startTestCluster } from '@vigil/testing/kube/test-cluster';
import { EventRecorder } from '../../src/controllers/events.js';

test('a burst of 1,100 Events: 1,004 written (4 in flight, 1,000 queued), 96 dropped and counted', async (t) => {
  const cluster = await startTestCluster(t);
  const client = new KubeClient(loadKubeConfig({ KUBECONFIG: cluster.operatorKubeconfig }));
  t.after(() => client.close());
  let droppedSeen = 0;
  const events = new EventRecorder(client, 'unit', systemClock, pino({ level: 'silent' }), 60_000, () => droppedSeen++);
  for (let i = 0; i < 1100; i++) {
    const camera = { apiVersion: 'vigil.io/v1alpha1', kind: 'Camera', metadata: { name: `cam-${i}`, namespace: cluster.namespace, uid: `uid-${i}` } } as KubeObject;
    events.normal(camera, 'Assigned', 'assigned to node node-a');
  }
  assert.equal(events.dropped, 96);
  assert.equal(droppedSeen, 96, 'every dropped Event is counted (vigil_operator_events_dropped_total)');
  await events.flush();
  const admin = new KubeClient(loadKubeConfig({ KUBECONFIG: cluster.adminKubeconfig }));
  t.after(() => admin.close());
  const written = (await admin.list<CoreEvent & KubeObject>(Resources.events, { namespace: cluster.namespace })).items.filter((e) => e.reason === 'Assigned');
  assert.equal(written.length, 1004);
  assert.equal(new Set(written.map((e) => e.involvedObject.name)).size, 1004, 'the first 1,004, once each');
  assert.ok(written.every((e) => Number(e.involvedObject.name?.slice(4)) < 1004), 'the ones dropped are the newest');
});
