// clusterLocator: a camera recorded here is local; one another node records is remote at that node's URL (its
// heartbeat's report first, its RecorderNode status next, the Camera's url last) — even on the old side of a move. The node's caches hold only the cameras
// it records or hands over; any other camera is looked up in the API when asked for.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CameraRegistry } from '../../src/cameras/registry.js';
import { clusterLocator } from '../../src/cluster/cluster-locator.js';
import { ClusterLookups } from '../../src/cluster/cluster-lookups.js';
import { systemClock } from '../../src/util/clock.js';
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
  await n.until(() => n.view.recordedHere().length === 2 && n.view.recorderNodes.list().length === 3, 'the view');
  // The watches carry this node's cameras and nothing else.
  assert.deepEqual(n.view.assigned.list().map((c) => c.metadata.name), ['here']);
  assert.deepEqual(n.view.recorded.handingOver.list().map((c) => c.metadata.name), ['moving']);

  const registry = new CameraRegistry();
  registry.publish('cluster', [configCamera({ id: 'here', source: 'rtsp://192.0.2.10/here' }), configCamera({ id: 'moving', source: 'rtsp://192.0.2.10/moving' })]);
  const locator = clusterLocator(n.view, new ClusterLookups(n.client, n.cluster.namespace, systemClock), registry, 'node-a');
  assert.deepEqual(await locator.locate('here'), { kind: 'local' });
  assert.deepEqual(await locator.locate('there'), { kind: 'remote', node: 'node-b', url: 'http://b.status:9997', publicUrl: 'https://b.vigil.example.com' });
  // Recorded here until node-c reports Recording, but node-c is its owner: callers go there, to where it reports it is.
  assert.deepEqual(await locator.locate('moving'), { kind: 'remote', node: 'node-c', url: 'http://c.reported:9997', publicUrl: undefined });
  assert.deepEqual(await locator.locate('pending'), { kind: 'unknown' });
  assert.deepEqual(await locator.locate('orphan'), { kind: 'remote', node: 'node-z', url: 'http://z.camera:9997', publicUrl: undefined });
  assert.deepEqual(await locator.locate('never-heard-of'), { kind: 'unknown' });
  const remote = (await locator.remoteCameras()).map((c) => [c.id, c.node, c.recording]).sort();
  assert.deepEqual(remote, [['moving', 'node-c', false], ['orphan', 'node-z', false], ['there', 'node-b', true]]);
  assert.deepEqual(n.view.recordedHere().map((c) => c.metadata.name).sort(), ['here', 'moving'], 'node-a records its own and the one it hands over');
});
