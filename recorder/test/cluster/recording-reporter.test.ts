// What a node reports about a camera it records: Recording=True once a segment is being written, False after 30 s without one.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Camera as CameraResource } from '@vigil/crds';
import { recordingReport, wantedRecording } from '../../src/cluster/recording-reporter.js';

function camera(status: CameraResource['status']): CameraResource & { metadata: { name: string; generation: number } } {
  return { apiVersion: 'vigil.io/v1alpha1', kind: 'Camera', metadata: { name: 'door', generation: 3 }, spec: { source: 'rtsp://h/s', ptz: false, audio: 'auto' }, status };
}

test('Recording=True as soon as this node writes a segment, unless it already says so for this node', () => {
  assert.equal(wantedRecording(camera({ node: 'node-a' }), 'node-a', true, 0, 30_000), 'True');
  const reported = camera({ node: 'node-a', recordingNode: 'node-a', conditions: [{ type: 'Recording', status: 'True' }] });
  assert.equal(wantedRecording(reported, 'node-a', true, 0, 30_000), undefined);
  // The condition says True but for the old node: the new node must claim it (the operator's handover waits for that).
  const oldNode = camera({ node: 'node-b', recordingNode: 'node-a', conditions: [{ type: 'Recording', status: 'True' }] });
  assert.equal(wantedRecording(oldNode, 'node-b', true, 0, 30_000), 'True');
});

test('Recording=False only after the camera has not been written for the whole grace period', () => {
  const reported = camera({ node: 'node-a', recordingNode: 'node-a', conditions: [{ type: 'Recording', status: 'True' }] });
  assert.equal(wantedRecording(reported, 'node-a', false, 29_000, 30_000), undefined);
  assert.equal(wantedRecording(reported, 'node-a', false, 30_000, 30_000), 'False');
  const already = camera({ node: 'node-a', recordingNode: 'node-a', conditions: [{ type: 'Recording', status: 'False' }] });
  assert.equal(wantedRecording(already, 'node-a', false, 90_000, 30_000), undefined);
});

test('the applied fields are the Recording condition (its transition time kept unless it changes) and recordingNode, nothing of the operator\'s', () => {
  const assigned = { type: 'Assigned', status: 'True' as const, reason: 'NodeAssigned' };
  const before = camera({ node: 'node-a', phase: 'Recording', conditions: [assigned, { type: 'Recording', status: 'True', lastTransitionTime: '2026-11-23T10:00:00Z' }] });
  const same = recordingReport(before, 'node-a', 'True', Date.UTC(2026, 10, 23, 11));
  assert.deepEqual(Object.keys(same).sort(), ['conditions', 'recordingNode']);
  assert.deepEqual(same.conditions.map((c) => c.type), ['Recording']);
  assert.equal(same.conditions[0]?.lastTransitionTime, '2026-11-23T10:00:00Z');
  assert.equal(same.conditions[0]?.observedGeneration, 3);
  assert.equal(same.recordingNode, 'node-a');
  const changed = recordingReport(before, 'node-a', 'False', Date.UTC(2026, 10, 23, 11));
  assert.equal(changed.conditions[0]?.lastTransitionTime, '2026-11-23T11:00:00Z');
  assert.equal(changed.conditions[0]?.reason, 'StreamUnavailable');
});
