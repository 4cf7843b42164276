// Two operators: only the leader acts; kill -9 of the leader → the standby leads once the Lease expires; SIGTERM → the
// Lease is released and the standby leads; a leader cut off from the API exits (never a half-leader). How fast is
// bench/'s to measure: the bounds here are functional (a loaded machine stretches every real process).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { waitUntil } from '@vigil/testing/processes';
import { FakeRecorder } from '../support/fake-recorders.js';
import { startTestCluster } from '@vigil/testing/kube/test-cluster';
import { repeatedTopLevelKeys } from '@vigil/testing/json-keys';
import { startOperator, type OperatorProcess } from '@vigil/testing/kube/operator-process';
import { applyCameras, assertNoForbidden, assertRecordersAllowed, waitForCameras } from '../support/scenario.js';

async function waitForLeader(proc: OperatorProcess, timeoutMs: number): Promise<number> {
  await waitUntil(async () => proc.exitCode === undefined && (await proc.isLeader().catch(() => false)), timeoutMs, `${proc.identity} to lead`, 100);
  return Date.now();
}

test('only the leader acts; kill -9 → the standby leads once the Lease expired; SIGTERM → the Lease is released to it; cut off → exit', async (t) => {
  const cluster = await startTestCluster(t);
  const recorders = ['node-a', 'node-b', 'node-c'].map((n) => new FakeRecorder(n, cluster));
  t.after(() => recorders.forEach((r) => r.stop()));
  for (const r of recorders) await cluster.addNode(r.node);
  const kubeconfigs = new Map<string, { path: string; token: string }>();
  const start = async (id: string) => {
    const kc = await cluster.kubeconfigFor('vigil-operator', id);
    kubeconfigs.set(id, kc);
    return startOperator(t, cluster, id, [], kc.path);
  };

  /** When the current holder took the Lease (its acquireTime, written by the new leader). */
  const acquiredAt = async () => {
    const l = await cluster.coordination.readNamespacedLease({ name: 'vigil-operator', namespace: cluster.namespace });
    return new Date(l.spec?.acquireTime ?? 0).getTime();
  };
  const op1 = await start('op-1');
  await waitForLeader(op1, 15_000);
  // The leader made each node's ServiceAccount and heartbeat Lease: the recorders start on them.
  await Promise.all(recorders.map((r) => r.start()));
  const op2 = await start('op-2');
  await waitUntil(async () => (await fetch(`http://127.0.0.1:${op2.port}/readyz`)).status === 200, 30_000, 'op-2 caches synced');
  await applyCameras(cluster, ['cam-1', 'cam-2', 'cam-3']);
  await waitForCameras(cluster, (cs) => cs.length === 3 && cs.every((c) => c.status?.phase === 'Recording'), 30_000, 'cameras Recording');

  // Only the leader acted: the standby has reconciled nothing and holds no Lease.
  const m2 = await op2.metrics();
  assert.equal(m2.value('vigil_operator_leader'), 0);
  assert.equal(m2.samples.filter((s) => s.name === 'vigil_operator_reconciles_total').reduce((a, s) => a + s.value, 0), 0);
  const m1 = await op1.metrics();
  assert.ok(m1.samples.some((s) => s.name === 'vigil_operator_reconciles_total' && s.value > 0));
  // The cluster's state comes from the leader alone: an alert on quorum must not fire for the standby.
  assert.equal(m1.value('vigil_operator_quorum'), 1);
  assert.equal(m1.value('vigil_operator_members', { state: 'online' }), 3);
  for (const name of ['vigil_operator_quorum', 'vigil_operator_members', 'vigil_operator_cameras', 'vigil_operator_camera_moves_total']) {
    assert.deepEqual(m2.samples.filter((s) => s.name === name), [], `the standby exports ${name}`);
  }
  // Informer lists are counted on both replicas, as a counter.
  for (const m of [m1, m2]) {
    assert.equal(m.types.get('vigil_operator_informer_lists_total'), 'counter');
    assert.ok((m.value('vigil_operator_informer_lists_total', { informer: 'cameras' }) ?? 0) >= 1);
  }
  const lease = await cluster.coordination.readNamespacedLease({ name: 'vigil-operator', namespace: cluster.namespace });
  assert.equal(lease.spec?.holderIdentity, 'op-1');
  assert.equal(lease.spec?.leaseDurationSeconds, 6);

  // kill -9 of the leader.
  const killedAt = Date.now();
  op1.child.kill('SIGKILL');
  await op1.exited;
  await waitForLeader(op2, 60_000);
  const killTakeover = ((await acquiredAt()) - killedAt) / 1000;
  t.diagnostic(`kill -9 → new leader after ${killTakeover.toFixed(2)} s (lease 6 s + retry 1 s)`);
  // ... and it acts.
  await applyCameras(cluster, ['cam-4']);
  await waitForCameras(cluster, (cs) => cs.find((c) => c.metadata.name === 'cam-4')?.status?.node !== undefined, 30_000, 'cam-4 assigned by op-2');

  // SIGTERM of the leader: the Lease is released and the standby takes over at once.
  const op3 = await start('op-3');
  await waitUntil(async () => (await fetch(`http://127.0.0.1:${op3.port}/readyz`)).status === 200, 30_000, 'op-3 caches synced');
  const termAt = Date.now();
  op2.child.kill('SIGTERM');
  await waitForLeader(op3, 60_000);
  const termTakeover = ((await acquiredAt()) - termAt) / 1000;
  t.diagnostic(`SIGTERM → new leader after ${termTakeover.toFixed(2)} s`);
  assert.equal(await op2.exited, 0);
  // A handover, not an expiry: the leader gave the Lease up on its way out.
  assert.match(op2.logText(), /leadership released/);
  await applyCameras(cluster, ['cam-5']);
  await waitForCameras(cluster, (cs) => cs.find((c) => c.metadata.name === 'cam-5')?.status?.node !== undefined, 30_000, 'cam-5 assigned by op-3');

  // A leader cut off from the API cannot renew: it exits (code 1) within the renew deadline, never a half-leader.
  const op4 = await start('op-4');
  await waitUntil(async () => (await fetch(`http://127.0.0.1:${op4.port}/readyz`)).status === 200, 30_000, 'op-4 caches synced');
  const cutAt = Date.now();
  cluster.controlPlane.faults.cutOff(kubeconfigs.get('op-3')!.token, 'refuse');
  assert.equal(await op3.exited, 1);
  const exitAfter = (Date.now() - cutAt) / 1000;
  t.diagnostic(`cut-off leader exited after ${exitAfter.toFixed(2)} s`);
  assert.match(op3.logText(), /leadership lost/);
  await waitForLeader(op4, 15_000);
  for (const op of [op1, op2, op3, op4]) {
    assertNoForbidden(op);
    // Every log line names each key once (no child binding repeating the base's component or identity).
    const repeats = op.rawLines.map((line) => [line, repeatedTopLevelKeys(line)] as const).filter(([, keys]) => keys.length > 0);
    assert.deepEqual(repeats, [], `${op.identity} wrote log lines with repeated keys`);
    assert.ok(op.rawLines.length > 0);
  }
  assertRecordersAllowed(recorders);
  await op4.stop();
});
