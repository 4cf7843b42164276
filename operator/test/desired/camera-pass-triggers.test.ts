// Which Camera changes start the passes over every Camera: the checks (source, credentials reference, generation, the
// check conditions) and the nodes' credentials Secrets (credentials reference, the nodes that record it). A recorder's
// report, a phase or an Event-worthy status change starts neither: at 5,000 cameras each pass held the operator's
// event loop for one to three seconds, and a rollout makes thousands of such changes (docs/benchmarks.md).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Camera, Condition } from '@vigil/crds';
import { checksInputsChanged } from '../../src/desired/camera-checks.js';
import { credentialsInputsChanged } from '../../src/desired/camera-credentials.js';
import { camera } from '../support/objects.js';

const recording: Condition = { type: 'Recording', status: 'True', reason: 'SegmentWritten', message: 'recording on node-a', lastTransitionTime: '2026-01-01T00:00:00Z' };
const unique: Condition = { type: 'SourceUnique', status: 'True', reason: 'UniqueSource', message: 'no other Camera has this source', observedGeneration: 1, lastTransitionTime: '2026-01-01T00:00:00Z' };
const withCondition = (cam: Camera, c: Condition): Camera => ({ ...cam, status: { ...cam.status, conditions: [...(cam.status?.conditions ?? []), c] } });

test('a status the assignment or a recorder writes starts no checks pass and no credentials pass', () => {
  const assigned = withCondition(camera('lobby', { node: 'node-a', phase: 'Assigned' }), unique);
  const reported = withCondition({ ...assigned, status: { ...assigned.status, phase: 'Recording', recordingNode: 'node-a' } }, recording);
  assert.equal(checksInputsChanged(reported, assigned), false);
  assert.equal(credentialsInputsChanged(reported, assigned), false);
});

test('a Camera that comes or goes, or is being deleted, starts both passes', () => {
  const cam = camera('lobby', { node: 'node-a' });
  for (const [obj, old] of [[cam, undefined], [undefined, cam], [{ ...cam, metadata: { ...cam.metadata, deletionTimestamp: '2026-01-01T00:00:00Z' } }, cam]] as const) {
    assert.equal(checksInputsChanged(obj, old), true);
    assert.equal(credentialsInputsChanged(obj, old), true);
  }
});

test('the checks run again when the source, the credentials reference or the generation changes, or someone changes a check condition', () => {
  const cam = withCondition(camera('lobby'), unique);
  assert.equal(checksInputsChanged({ ...cam, spec: { ...cam.spec, source: 'rtsp://cams.example/other' } }, cam), true);
  assert.equal(checksInputsChanged({ ...cam, spec: { ...cam.spec, credentialsSecretRef: { name: 'lobby-login', usernameKey: 'username', passwordKey: 'password' } } }, cam), true);
  assert.equal(checksInputsChanged({ ...cam, metadata: { ...cam.metadata, generation: 2 } }, cam), true);
  assert.equal(checksInputsChanged({ ...cam, status: { ...cam.status, conditions: [] } }, cam), true, 'a check condition removed by hand is put back');
});

test('the credentials Secrets are written again when the nodes that record the camera change, or its credentials reference', () => {
  const cam = camera('lobby', { node: 'node-a' }, { credentialsSecretRef: { name: 'lobby-login', usernameKey: 'username', passwordKey: 'password' } });
  assert.equal(credentialsInputsChanged({ ...cam, status: { ...cam.status, node: 'node-b' } }, cam), true, 'moved');
  assert.equal(credentialsInputsChanged({ ...cam, status: { node: 'node-b', handoverFrom: 'node-a' } }, cam), true, 'a planned move starts');
  assert.equal(credentialsInputsChanged({ ...cam, spec: { ...cam.spec, credentialsSecretRef: { name: 'other-login', usernameKey: 'username', passwordKey: 'password' } } }, cam), true);
  assert.equal(credentialsInputsChanged({ ...cam, spec: { ...cam.spec, source: 'rtsp://cams.example/other' } }, cam), false, 'the source is not in the Secret');
});
