// clusterLocator: a camera recorded here is local; one another node records is remote at that node's URL (its
// heartbeat's report first, its RecorderNode status next, the Camera's url last) — even on the old side of a move.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CameraRegistry } from '../../src/cameras/registry.js';
import { clusterLocator } from '../../src/cluster/cluster-locator.js';
import { configCamera } from '../support/fakes.js';
import { nodeUnderTest } from '../support/cluster-view-fixture.js';

test('local, remote at the owner\'s reported or known URL, unknown; the old side of a move sends callers on', async (t) => {
  const n = await nodeUnderTest(t, 'node-a');
  const now = Date.now();
  await n.recorderNode('node-a');
  await n.recorderNode('node-b', { status: { url: 'http://b.status:9997', publicUrl: 'https://b.vigil.example.com' } });
  await n.recorderNode('node-c', { status: { url: 'http://c.stale:9997', publicUrl: 'https://c.stale.example.com' } });
  await n.lease('node-c', now, { 'vigil.io/url': 'http://c.reported:9997' });
  await n.camera('here', {}, { node: 'node-a', phase: 'Recording' });
  await n.camera('there', {}, { node: 'node-b', phase: 'Recording' });
  await n.camera('moving', {}, { node: 'node-c', handoverFrom: 'node-a', phase: 'Assigned' });
  await n.camera('pending');
  await n.camera('orphan', {}, { node: 'node-z', url: 'http://z.camera:9997', phase: 'Assigned' });
  await n.until(() => n.view.cameras.list().length === 5 && n.view.lease('vigil-node-node-c') !== undefined && n.view.recorderNodes.list().length === 3, 'the view');

  const registry = new CameraRegistry();
  registry.publish('cluster', [configCamera({ id: 'here', source: 'rtsp://192.0.2.10/here' }), configCamera({ id: 'moving', source: 'rtsp://192.0.2.10/moving' })]);
  const locator = clusterLocator(n.view, registry, 'node-a');
  assert.deepEqual(locator.locate('here'), { kind: 'local' });
  assert.deepEqual(locator.locate('there'), { kind: 'remote', node: 'node-b', url: 'http://b.status:9997', publicUrl: 'https://b.vigil.example.com' });
  // Recorded here until node-c reports Recording, but node-c is its owner: callers go there, to where it reports it is.
  assert.deepEqual(locator.locate('moving'), { kind: 'remote', node: 'node-c', url: 'http://c.reported:9997', publicUrl: undefined });
  assert.deepEqual(locator.locate('pending'), { kind: 'unknown' });
  assert.deepEqual(locator.locate('orphan'), { kind: 'remote', node: 'node-z', url: 'http://z.camera:9997', publicUrl: undefined });
  assert.deepEqual(locator.locate('never-heard-of'), { kind: 'unknown' });
  const remote = locator.remoteCameras().map((c) => [c.id, c.node, c.recording]).sort();
  assert.deepEqual(remote, [['moving', 'node-c', false], ['orphan', 'node-z', false], ['there', 'node-b', true]]);
  assert.deepEqual(n.view.assignedTo('node-a').map((c) => c.metadata.name).sort(), ['here', 'moving'], 'node-a records its own and the one it hands over');
});
