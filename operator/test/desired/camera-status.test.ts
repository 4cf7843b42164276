// desiredCameraStatus and cameraPhase: the operator's fields only (the recorder's are read for the phase, never
// written), phases by the contract.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { toApiTime } from '@vigil/kube';
import { cameraPhase, desiredCameraStatus, nextPhaseChangeIn, sameStatus } from '../../src/desired/camera-status.js';
import { camera, node } from '../support/objects.js';

const now = Date.parse('2026-01-01T00:10:00Z');
const nodes = new Map([['a', node('a')], ['b', node('b')]]);

test('a new assignment: node, url, Assigned=True, phase Assigned, lastMoveTime, observedGeneration', () => {
  const s = desiredCameraStatus(camera('c1', {}, {}, 3), { key: 'vigil/c1', node: 'a', move: 'assigned' }, nodes, now);
  assert.equal(s.node, 'a');
  assert.equal(s.url, 'http://vigil-recorder-a.vigil.svc:9997');
  assert.equal(s.phase, 'Assigned');
  assert.equal(s.lastMoveTime, toApiTime(now));
  assert.equal(s.observedGeneration, 3);
  const cond = s.conditions?.find((c) => c.type === 'Assigned');
  assert.deepEqual([cond?.status, cond?.reason, cond?.observedGeneration], ['True', 'NodeAssigned', 3]);
});

test('the recorder\'s Recording condition and recordingNode are not the operator\'s to write; Recording phase needs recordingNode == node', () => {
  const rec = { type: 'Recording', status: 'True' as const, reason: 'SegmentWritten', lastTransitionTime: '2026-01-01T00:00:00Z' };
  const cam = camera('c1', { node: 'a', recordingNode: 'a', conditions: [rec] });
  const s = desiredCameraStatus(cam, { key: 'vigil/c1', node: 'a', move: 'none' }, nodes, now);
  assert.equal(s.phase, 'Recording');
  assert.equal((s as Record<string, unknown>).recordingNode, undefined);
  assert.deepEqual(s.conditions?.map((c) => c.type), ['Assigned']);
  const moved = desiredCameraStatus(cam, { key: 'vigil/c1', node: 'b', move: 'failover', from: 'a' }, nodes, now);
  assert.equal(moved.phase, 'Assigned');
});

test('Pending with the reason; handoverFrom set and cleared', () => {
  const s = desiredCameraStatus(camera('c1', { node: 'a', handoverFrom: 'b' }), { key: 'vigil/c1', move: 'unassigned', reason: 'NoEligibleNode', message: 'nobody' }, nodes, now);
  assert.equal(s.phase, 'Pending');
  assert.equal(s.node, undefined);
  assert.equal(s.handoverFrom, undefined);
  assert.deepEqual(s.conditions?.map((c) => [c.type, c.status, c.reason, c.message]), [['Assigned', 'False', 'NoEligibleNode', 'nobody']]);
  const h = desiredCameraStatus(camera('c1', { node: 'a' }), { key: 'vigil/c1', node: 'b', handoverFrom: 'a', move: 'planned', from: 'a' }, nodes, now);
  assert.equal(h.handoverFrom, 'a');
  assert.equal(h.conditions?.[0]?.reason, 'Handover');
});

test('lastTransitionTime changes only with the condition status; the same input gives the same status', () => {
  const first = desiredCameraStatus(camera('c1'), { key: 'vigil/c1', node: 'a', move: 'assigned' }, nodes, now);
  const again = desiredCameraStatus(camera('c1', first), { key: 'vigil/c1', node: 'a', move: 'none' }, nodes, now + 5000);
  assert.ok(sameStatus(first, again));
});

test('Failed after 60 s of StreamUnavailable reported since the camera came to its node', () => {
  const since = now - 61_000;
  const status = { node: 'a', lastMoveTime: toApiTime(since - 1000), conditions: [{ type: 'Recording', status: 'False' as const, reason: 'StreamUnavailable', lastTransitionTime: toApiTime(since) }] };
  assert.equal(cameraPhase(status, now), 'Failed');
  assert.equal(cameraPhase(status, since + 30_000), 'Assigned');
  assert.ok((nextPhaseChangeIn(status, since + 30_000) ?? 0) > 29_000);
  // a report older than the move is the previous node's
  assert.equal(cameraPhase({ ...status, lastMoveTime: toApiTime(since + 1000) }, now), 'Assigned');
});
