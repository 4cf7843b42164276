// Balanced placement from a cold start: Cameras applied before any heartbeat wait for quorum (counted over every
// selected Node), spread over the first members, and even out — by make-before-break moves, a few at a time — once a
// late member has been online for the settling period; a flapping member gets nothing until it settles.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Camera } from '@vigil/crds';
import { startTestCluster } from '@vigil/testing/kube/test-cluster';
import { startOperator } from '@vigil/testing/kube/operator-process';
import { waitUntil } from '@vigil/testing/processes';
import { FakeRecorder } from '../support/fake-recorders.js';
import { applyCameras, assertNoForbidden, assertRecordersAllowed, byNode, sleep, waitForCameras } from '../support/scenario.js';

const CAMERAS = ['cam-1', 'cam-2', 'cam-3', 'cam-4', 'cam-5', 'cam-6'];
const counts = (cams: Camera[]): Record<string, number> =>
  Object.fromEntries(Object.entries(byNode(cams)).map(([n, list]): [string, number] => [n, list.length]).sort(([a], [b]) => (a < b ? -1 : 1)));
const allRecording = (cams: Camera[]) => cams.length === CAMERAS.length && cams.every((c) => c.status?.phase === 'Recording' && !c.status.handoverFrom);

test('cold start: Cameras before any heartbeat, three nodes up at different times → 2/2/2 within 60 s; a flapping node gets nothing until it settles', { timeout: 300_000 }, async (t) => {
  const cluster = await startTestCluster(t);
  const names = ['node-a', 'node-b', 'node-c', 'node-d'];
  const recorders = new Map(names.map((n) => [n, new FakeRecorder(n, cluster)]));
  t.after(() => recorders.forEach((r) => r.stop()));
  for (const n of names.slice(0, 3)) await cluster.addNode(n);
  // `helm install` then `kubectl apply` of the Cameras: no recorder Pod has come up yet.
  await applyCameras(cluster, CAMERAS);
  const operator = await startOperator(t, cluster, 'op-1');
  const rec = (n: string) => recorders.get(n) as FakeRecorder;
  await Promise.all(names.slice(0, 3).map((n) => rec(n).connect()));
  const onlineSince = async (n: string) => {
    await waitUntil(async () => (await cluster.recorderNodes()).find((r) => r.metadata.name === n)?.status?.online === true, 10_000, `${n} online`, 100);
    return Date.now();
  };
  const noQuorum = (of: RegExp) => (cams: Camera[]) => cams.length === CAMERAS.length && cams.every((c) => {
    const assigned = c.status?.conditions?.find((x) => x.type === 'Assigned');
    return c.status?.phase === 'Pending' && assigned?.reason === 'NoQuorum' && of.test(assigned.message ?? '');
  });
  await waitForCameras(cluster, noQuorum(/0 of 3 members online/), 30_000, 'every camera Pending: no quorum, 0 of 3');

  // The first recorder alone is 1 of 3 members, not a majority: it takes nothing (it used to take everything, for good).
  await rec('node-a').start();
  await onlineSince('node-a');
  await sleep(2000);
  await waitForCameras(cluster, noQuorum(/1 of 3 members online/), 10_000, 'still no quorum with one of three');

  // The second: quorum; the cameras spread over the two members up.
  await rec('node-b').start();
  let cams = await waitForCameras(cluster, allRecording, 30_000, 'every camera recording on node-a and node-b');
  assert.deepEqual(counts(cams), { 'node-a': 3, 'node-b': 3 });

  // The third comes up later: nothing moves while it settles, then two cameras move to it, make-before-break.
  await sleep(3000);
  await rec('node-c').start();
  const cameOnline = await onlineSince('node-c');
  await sleep(20_000);
  assert.deepEqual(counts(await cluster.cameras()), { 'node-a': 3, 'node-b': 3 }, 'nothing moves to a member still settling');
  cams = await waitForCameras(cluster, (cs) => allRecording(cs) && JSON.stringify(counts(cs)) === JSON.stringify({ 'node-a': 2, 'node-b': 2, 'node-c': 2 }), 60_000 - (Date.now() - cameOnline), '2/2/2 within 60 s of node-c coming online');
  const evenAfter = (Date.now() - cameOnline) / 1000;
  t.diagnostic(`2/2/2 ${evenAfter.toFixed(1)} s after node-c came online`);
  assert.ok(evenAfter >= 29, `moved only after the settling period (${evenAfter.toFixed(1)} s)`);
  await waitUntil(async () => (await cluster.events()).filter((e) => e.reason === 'HandoverComplete').length >= 2, 10_000, 'the handovers complete');
  const events = await cluster.events();
  const moved = events.filter((e) => e.reason === 'Rebalance').map((e) => e.involvedObject.name).sort();
  assert.deepEqual(moved, [...(byNode(cams)['node-c'] ?? [])].sort(), 'the two cameras on node-c came by Rebalance moves');
  assert.deepEqual(events.filter((e) => e.reason === 'Failover'), [], 'no camera was moved by a failover');
  assert.equal((await operator.metrics()).value('vigil_operator_camera_moves_total', { kind: 'rebalance' }), 2);

  // node-d joins and flaps: online for 15 s after each lone renewal, silent in between — it never settles.
  await cluster.addNode('node-d');
  await rec('node-d').connect();
  const flapUntil = Date.now() + 40_000;
  let renewedAt = 0;
  while (Date.now() < flapUntil) {
    if (Date.now() - renewedAt >= 17_000) {
      await rec('node-d').renew();
      renewedAt = Date.now();
    }
    cams = await cluster.cameras();
    assert.deepEqual(cams.filter((c) => c.status?.node === 'node-d').map((c) => c.metadata.name), [], 'a flapping node gets nothing');
    await sleep(500);
  }
  assert.deepEqual(counts(cams), { 'node-a': 2, 'node-b': 2, 'node-c': 2 });

  // Once it stays online for the settling period it takes its share (6 cameras on 4 members: 2/2/1/1).
  await rec('node-d').start();
  cams = await waitForCameras(cluster, (cs) => allRecording(cs) && (counts(cs)['node-d'] ?? 0) === 1 && Object.values(counts(cs)).every((n) => n >= 1 && n <= 2), 60_000, 'node-d takes one camera once settled');
  assertNoForbidden(operator);
  assertRecordersAllowed(recorders.values());
});
