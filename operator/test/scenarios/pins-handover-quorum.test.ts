// Pins and selectors; a camera nobody may record stays Pending with the reason; member: false moves cameras
// make-before-break (the old node stays handoverFrom until the new one reports Recording); 2 of 3 members silent:
// no quorum, nothing moves, nothing is assigned, the metrics and Events say so.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { waitUntil } from '@vigil/testing/processes';
import { applyCameras, assertNoForbidden, assertRecordersAllowed, byNode, lastRenewOf, sleep, startScenario, waitForCameras, waitForEvents } from '../support/scenario.js';

test('pins, Pending with a reason, make-before-break handover, no moves without quorum', async (t) => {
  const { cluster, recorders, operator } = await startScenario(t, [
    { name: 'node-a', labels: { zone: 'east' } },
    { name: 'node-b', labels: { zone: 'east' } },
    { name: 'node-c', labels: { zone: 'west', gpu: 'yes' } },
  ]);
  const pins: Record<string, string> = {
    'cam-pin': '  nodeName: node-b\n',
    'cam-gpu': '  nodeSelector:\n    gpu: "yes"\n',
    'cam-east': '  nodeSelector:\n    zone: east\n',
    'cam-nowhere': '  nodeSelector:\n    zone: mars\n',
    'cam-ghost': '  nodeName: node-z\n',
    // Placed on node-c by its selector, which then goes: a camera node-c records that may move (least-loaded placement
    // alone may leave node-c with cam-gpu only, depending on the order the Cameras reach the operator).
    'cam-west': '  nodeSelector:\n    zone: west\n',
  };
  await applyCameras(cluster, [...Object.keys(pins), 'cam-1', 'cam-2', 'cam-3'], (n) => pins[n] ?? '');

  // Pins and selectors respected; the impossible ones Pending with a reason.
  let cams = await waitForCameras(cluster, (cs) => cs.length === 9 && cs.filter((c) => c.status?.phase === 'Recording').length === 7 && cs.filter((c) => c.status?.phase === 'Pending').length === 2, 30_000, 'seven Recording and two Pending');
  const node = (name: string) => cams.find((c) => c.metadata.name === name)?.status?.node;
  assert.equal(node('cam-pin'), 'node-b');
  assert.equal(node('cam-gpu'), 'node-c');
  assert.equal(node('cam-west'), 'node-c');
  assert.ok(['node-a', 'node-b'].includes(node('cam-east') ?? ''));
  for (const name of ['cam-nowhere', 'cam-ghost']) {
    const c = cams.find((x) => x.metadata.name === name)!;
    assert.equal(c.status?.node, undefined);
    const assigned = c.status?.conditions?.find((x) => x.type === 'Assigned');
    assert.deepEqual([assigned?.status, assigned?.reason], ['False', 'NoEligibleNode']);
    assert.match(assigned?.message ?? '', name === 'cam-ghost' ? /nodeName node-z/ : /nodeSelector zone=mars/);
  }
  await waitUntil(async () => (await cluster.events()).some((e) => e.reason === 'NoEligibleNode' && e.involvedObject.name === 'cam-nowhere'), 5000, 'a NoEligibleNode Event');

  // cam-west's selector goes: it stays where it records (stable), and may now be recorded anywhere.
  const generation = Number(await cluster.kubectl('patch', 'cam', 'cam-west', '-n', cluster.namespace, '--type', 'json', '-p', '[{"op":"remove","path":"/spec/nodeSelector"}]', '-o', 'jsonpath={.metadata.generation}'));
  cams = await waitForCameras(cluster, (cs) => cs.find((c) => c.metadata.name === 'cam-west')?.status?.observedGeneration === generation, 30_000, 'cam-west\'s new spec seen');
  assert.equal(node('cam-west'), 'node-c', 'a camera stays where it records when its pins allow it');

  // node-c is no longer a member: make-before-break. The new nodes do not report Recording yet.
  const onC = byNode(cams)['node-c'] ?? [];
  const movable = onC.filter((n) => n !== 'cam-gpu');
  assert.ok(movable.length >= 1, `something besides cam-gpu on node-c: ${onC.join(',')}`);
  recorders.get('node-a')!.reportRecording = false;
  recorders.get('node-b')!.reportRecording = false;
  await cluster.kubectl('patch', 'rn', 'node-c', '--type', 'merge', '-p', '{"spec":{"member":false}}');
  cams = await waitForCameras(cluster, (cs) => movable.every((m) => { const c = cs.find((x) => x.metadata.name === m); return c?.status?.node !== 'node-c' && c?.status?.handoverFrom === 'node-c'; }), 30_000, 'the planned moves to start');
  for (const m of movable) assert.equal(cams.find((c) => c.metadata.name === m)?.status?.phase, 'Assigned');
  await sleep(2000);
  cams = await cluster.cameras();
  for (const m of movable) assert.equal(cams.find((c) => c.metadata.name === m)?.status?.handoverFrom, 'node-c', 'the old node records until the new one reports Recording');
  // cam-gpu has nowhere else to go: it stays where it records.
  const gpu = cams.find((c) => c.metadata.name === 'cam-gpu')!;
  assert.deepEqual([gpu.status?.node, gpu.status?.handoverFrom], ['node-c', undefined]);
  assert.match(gpu.status?.conditions?.find((c) => c.type === 'Assigned')?.message ?? '', /stays on node-c/);
  // The new nodes report Recording: the handover completes.
  recorders.get('node-a')!.reportRecording = true;
  recorders.get('node-b')!.reportRecording = true;
  cams = await waitForCameras(cluster, (cs) => movable.every((m) => { const c = cs.find((x) => x.metadata.name === m); return c?.status?.handoverFrom === undefined && c?.status?.phase === 'Recording'; }), 30_000, 'the handovers to complete');
  for (const m of movable) assert.equal(cams.find((c) => c.metadata.name === m)?.status?.recordingNode, cams.find((c) => c.metadata.name === m)?.status?.node);
  // (Events are written after the status, in the background)
  await waitUntil(async () => {
    const events = await cluster.events();
    return movable.every((m) => ['Handover', 'HandoverComplete'].every((reason) => events.some((e) => e.reason === reason && e.involvedObject.name === m)));
  }, 30_000, 'Handover and HandoverComplete Events for every moved camera');
  await waitUntil(async () => (await cluster.events()).some((e) => e.reason === 'MembershipChanged' && e.involvedObject.name === 'node-c'), 5000, 'a MembershipChanged Event');

  // node-c votes again; then node-a and node-b go silent: 1 of 3 members online, no quorum.
  await cluster.kubectl('patch', 'rn', 'node-c', '--type', 'merge', '-p', '{"spec":{"member":true}}');
  await sleep(1500);
  recorders.get('node-a')!.stopHeartbeat();
  recorders.get('node-b')!.stopHeartbeat();
  // The same last renewTime for both: they go silent at the same instant, so the first silent one is never moved
  // away from while the other still counts towards quorum.
  await sleep(500); // let a renewal already under way land first
  const at = new Date();
  await Promise.all([recorders.get('node-a')!.renew(at), recorders.get('node-b')!.renew(at)]);
  const silentSince = Math.max(await lastRenewOf(cluster, 'node-a'), await lastRenewOf(cluster, 'node-b'));
  await waitUntil(async () => (await operator.metrics()).value('vigil_operator_quorum') === 0, 30_000, 'quorum lost in the metrics');
  // Where the cameras are once quorum is lost (a rebalance towards node-c may have been decided before, with quorum).
  const placed = byNode(await cluster.cameras());
  await applyCameras(cluster, ['cam-late']);
  await sleep(Math.max(0, silentSince + 20_000 - Date.now()));
  cams = await cluster.cameras();
  const late = cams.find((c) => c.metadata.name === 'cam-late')!;
  const { ['']: pendingNow, ...placedNow } = byNode(cams);
  const { ['']: _pendingBefore, ...placedBefore } = placed;
  assert.deepEqual(placedNow, placedBefore, 'nothing moved without quorum');
  assert.ok(pendingNow?.includes('cam-late'));
  assert.equal(late.status?.conditions?.find((c) => c.type === 'Assigned')?.reason, 'NoQuorum');
  const m = await operator.metrics();
  assert.equal(m.value('vigil_operator_members', { state: 'online' }), 1);
  await waitForEvents(cluster, (es) => es.some((e) => e.reason === 'QuorumLost'), 'a QuorumLost Event');

  // node-a is back: 2 of 3 online, quorum regained. Moves resume: the new camera is assigned, and node-b (still
  // silent for more than 15 s) loses its cameras; nothing else moves.
  recorders.get('node-a')!.startHeartbeat();
  await recorders.get('node-a')!.renew();
  const onB = placedBefore['node-b'] ?? [];
  cams = await waitForCameras(cluster, (cs) => cs.find((c) => c.metadata.name === 'cam-late')?.status?.node !== undefined, 30_000, 'cam-late assigned after quorum returns');
  cams = await waitForCameras(cluster, (cs) => onB.every((n) => ['node-a', 'node-c'].includes(cs.find((c) => c.metadata.name === n)?.status?.node ?? '') || n === 'cam-pin'), 30_000, 'node-b\'s cameras moved');
  for (const [n, list] of Object.entries(placedBefore)) {
    if (n === 'node-b') continue;
    for (const name of list) assert.equal(cams.find((c) => c.metadata.name === name)?.status?.node, n, `${name} stayed on ${n}`);
  }
  // cam-pin may only be recorded by node-b: Pending until node-b is back.
  assert.equal(cams.find((c) => c.metadata.name === 'cam-pin')?.status?.phase, 'Pending');
  assert.equal((await operator.metrics()).value('vigil_operator_quorum'), 1);
  await waitForEvents(cluster, (es) => es.some((e) => e.reason === 'QuorumRegained'), 'a QuorumRegained Event');
  assertNoForbidden(operator);
  assertRecordersAllowed(recorders.values());
});
