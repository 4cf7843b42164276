// desiredRecorderNodeStatus: online from the heartbeat Lease, Ready from the Pod, Rolled from the template hash;
// cameraCountWait: a camera count alone is written at most every 10 s per node.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cameraCountWait, desiredRecorderNodeStatus } from '../../src/desired/recorder-node-status.js';
import { lease, recorderNode } from '../support/objects.js';

const now = Date.parse('2026-01-01T00:10:00Z');

test('online within 15 s of the last renew, offline after; without a report the last URL and version stay, cameras 0', () => {
  const rn = { ...recorderNode('a'), status: { url: 'http://a', version: '1.0', cameras: 3 } };
  const on = desiredRecorderNodeStatus({ rn, lease: lease('vigil-node-a', now - 15_000), pod: undefined, desiredHash: 'h', now, silenceMs: 15_000 });
  assert.equal(on.online, true);
  assert.deepEqual([on.url, on.version, on.cameras], ['http://a', '1.0', 0]);
  const reported = { ...lease('vigil-node-a', now), metadata: { name: 'vigil-node-a', annotations: { 'vigil.io/url': 'http://a2', 'vigil.io/cameras': '4' } } };
  const r = desiredRecorderNodeStatus({ rn, lease: reported, pod: undefined, desiredHash: 'h', now, silenceMs: 15_000 });
  assert.deepEqual([r.url, r.version, r.cameras, r.publicUrl], ['http://a2', undefined, 4, undefined], 'a report is taken whole');
  const off = desiredRecorderNodeStatus({ rn, lease: lease('vigil-node-a', now - 15_001), pod: undefined, desiredHash: 'h', now, silenceMs: 15_000 });
  assert.equal(off.online, false);
  assert.equal(off.conditions?.find((c) => c.type === 'Online')?.reason, 'HeartbeatSilent');
  assert.equal(off.observedGeneration, 1);
});

test('Ready and Rolled follow the Pod', () => {
  const pod = { metadata: { name: 'vigil-recorder-a', annotations: { 'vigil.io/template-hash': 'h' } }, status: { conditions: [{ type: 'Ready', status: 'True' }] } };
  const s = desiredRecorderNodeStatus({ rn: recorderNode('a'), lease: undefined, pod, desiredHash: 'h', now, silenceMs: 15_000 });
  assert.deepEqual(s.conditions?.map((c) => [c.type, c.status]), [['Online', 'False'], ['Ready', 'True'], ['Rolled', 'True']]);
  const outdated = desiredRecorderNodeStatus({ rn: recorderNode('a'), lease: undefined, pod, desiredHash: 'h2', now, silenceMs: 15_000 });
  assert.equal(outdated.conditions?.find((c) => c.type === 'Rolled')?.status, 'False');
});

test('a camera count alone waits for 10 s after the node\'s last write; any other change is written at once, and a first write never waits', () => {
  const prev = { online: true, url: 'http://a', cameras: 3 };
  const writtenAt = now - 4_000;
  assert.equal(cameraCountWait(prev, { ...prev, cameras: 4 }, writtenAt, now), 6_000, 'the rest of the 10 s');
  assert.equal(cameraCountWait(prev, { ...prev, cameras: 4 }, now - 10_000, now), 0, 'the 10 s have passed');
  assert.equal(cameraCountWait(prev, { ...prev, cameras: 4 }, undefined, now), 0, 'not written by this replica yet');
  assert.equal(cameraCountWait(prev, { ...prev, cameras: 4, online: false }, writtenAt, now), 0, 'the node went silent: at once, the count with it');
  assert.equal(cameraCountWait(prev, { ...prev, cameras: 4, url: 'http://a2' }, writtenAt, now), 0, 'a new URL: at once');
  assert.equal(cameraCountWait(prev, { ...prev }, writtenAt, now), 0, 'nothing to write');
});
