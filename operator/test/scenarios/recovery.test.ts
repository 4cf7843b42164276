// The operator recovers, without a restart and without duplicate moves, from dropped watches, compacted history
// (410 Gone → re-list) and an API answering 500 for a while — across a failover.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { waitUntil } from '@vigil/testing/processes';
import { applyCameras, assertNoForbidden, assertRecordersAllowed, byNode, sleep, startScenario, waitForCameras, waitForEvents } from '../support/scenario.js';

test('dropped watches, 410 Gone and 500s: recovered without a restart and without duplicate moves', async (t) => {
  // A longer leader Lease, so that 500s for several seconds cost the informers and reconciles, not the leadership.
  const { cluster, recorders, operator } = await startScenario(t, [{ name: 'node-a' }, { name: 'node-b' }, { name: 'node-c' }], {
    operatorArgs: ['--lease-duration', '20s', '--renew-deadline', '15s'],
  });
  const pid = operator.pid;
  await applyCameras(cluster, ['cam-1', 'cam-2', 'cam-3', 'cam-4', 'cam-5', 'cam-6']);
  let cams = await waitForCameras(cluster, (cs) => cs.length === 6 && cs.every((c) => c.status?.phase === 'Recording'), 30_000, 'cameras Recording');
  const listsBefore = (await operator.metrics()).samples.filter((s) => s.name === 'vigil_operator_informer_lists_total').reduce((a, s) => a + s.value, 0);

  // Watches dropped: re-watched from the last version; a new camera is still seen.
  cluster.controlPlane.faults.dropWatches();
  await applyCameras(cluster, ['cam-7']);
  await waitForCameras(cluster, (cs) => cs.find((c) => c.metadata.name === 'cam-7')?.status?.phase === 'Recording', 30_000, 'cam-7 after dropped watches');

  // History compacted and watches dropped: re-watching answers 410 Gone; the informers list again.
  await cluster.controlPlane.faults.compactHistory();
  cluster.controlPlane.faults.dropWatches();
  await applyCameras(cluster, ['cam-8']);
  await waitForCameras(cluster, (cs) => cs.find((c) => c.metadata.name === 'cam-8')?.status?.phase === 'Recording', 30_000, 'cam-8 after 410 Gone');
  await waitUntil(async () => (await operator.metrics()).samples.filter((s) => s.name === 'vigil_operator_informer_lists_total').reduce((a, s) => a + s.value, 0) > listsBefore, 5000, 're-lists counted');

  // node-a goes silent, and the API answers 500 for 6 s around the moment its cameras must move.
  cams = await cluster.cameras();
  const victims = byNode(cams)['node-a'] ?? [];
  assert.ok(victims.length > 0);
  recorders.get('node-a')!.stopHeartbeat();
  await sleep(13_000);
  cluster.controlPlane.faults.failRequests({ status: 500, forMs: 6000 });
  await sleep(6000);
  cams = await waitForCameras(cluster, (cs) => victims.every((v) => { const n = cs.find((c) => c.metadata.name === v)?.status?.node; return n !== undefined && n !== 'node-a'; }), 20_000, 'node-a\'s cameras moved after the 500s');
  await sleep(3000);
  const settled = await cluster.cameras();
  assert.deepEqual(byNode(settled), byNode(cams), 'no further moves');

  // Each camera moved exactly once; the process is the same one, still leading.
  await waitForEvents(cluster, (es) => es.filter((e) => e.reason === 'Failover').length >= victims.length, 'a Failover Event per moved camera');
  await sleep(1000);
  const failovers = (await cluster.events()).filter((e) => e.reason === 'Failover');
  assert.deepEqual(failovers.map((e) => e.involvedObject.name).sort(), [...victims].sort());
  const m = await operator.metrics();
  assert.equal(m.value('vigil_operator_camera_moves_total', { kind: 'failover' }), victims.length);
  assert.equal(m.value('vigil_operator_leader'), 1);
  assert.equal(operator.exitCode, undefined);
  assert.equal(operator.pid, pid);
  assert.ok((m.value('vigil_operator_reconcile_errors_total', { controller: 'assignment' }) ?? 0) + (m.value('vigil_operator_reconcile_errors_total', { controller: 'recordernodestatus' }) ?? 0) > 0, 'the 500s were seen');
  assertNoForbidden(operator);
  assertRecordersAllowed(recorders.values());
});
