// The zod schemas accept what the contract allows and refuse the rest (the recorder and the operator validate with them).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cameraSpecSchema, cameraStatusSchema } from '../src/camera.js';
import { nodeLeaseName, nodeOfLease } from '../src/constants.js';
import { recorderNodeSpecSchema } from '../src/recorder-node.js';

test('a Camera spec gets its defaults and refuses a non-RTSP source and out-of-range numbers', () => {
  const spec = cameraSpecSchema.parse({ source: 'rtsp://10.0.0.5:554/live', credentialsSecretRef: { name: 'cam-1' } });
  assert.equal(spec.ptz, false);
  assert.equal(spec.audio, 'auto');
  assert.deepEqual(spec.credentialsSecretRef, { name: 'cam-1', usernameKey: 'username', passwordKey: 'password' });
  assert.equal(cameraSpecSchema.safeParse({ source: 'http://x/y' }).success, false);
  assert.equal(cameraSpecSchema.safeParse({ source: 'rtsp://x', record: { segmentSeconds: 0 } }).success, false);
  assert.equal(cameraSpecSchema.safeParse({ source: 'rtsp://x', unknown: 1 }).success, false);
});

test('a Camera status takes conditions and a null handoverFrom', () => {
  const status = cameraStatusSchema.parse({ node: 'a', phase: 'Recording', handoverFrom: null, conditions: [{ type: 'Recording', status: 'True', lastTransitionTime: '2025-01-02T03:04:05Z' }] });
  assert.equal(status.handoverFrom, null);
  assert.equal(cameraStatusSchema.safeParse({ phase: 'Lost' }).success, false);
});

test('RecorderNode member defaults to true; Lease names', () => {
  assert.equal(recorderNodeSpecSchema.parse({ nodeName: 'n1' }).member, true);
  assert.equal(nodeLeaseName('n1'), 'vigil-node-n1');
  assert.equal(nodeOfLease('vigil-node-n1'), 'n1');
  assert.equal(nodeOfLease('vigil-operator'), undefined);
});
