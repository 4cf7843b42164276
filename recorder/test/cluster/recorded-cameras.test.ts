// A camera moving between a node's two watches (status.node = node → status.handoverFrom = node, and back when a move
// is called off) is recorded all along: never dropped between the DELETED of one watch and the ADDED of the other.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { API_VERSION, type CameraStatus } from '@vigil/crds';
import { Resources, type KubeObject } from '@vigil/kube';
import { nodeUnderTest } from '../support/cluster-view-fixture.js';

test('planned moves started and called off: the camera never leaves what the node records until the move completes', async (t) => {
  const n = await nodeUnderTest(t, 'node-a');
  await n.camera('door', {}, { node: 'node-a', phase: 'Recording' });
  const ns = n.cluster.namespace;
  const absences: string[] = [];
  let phase = 'assigned';
  n.view.onChange(() => {
    if (!n.view.recordedHere().some((c) => c.metadata.name === 'door')) absences.push(phase);
  });
  const status = (s: CameraStatus) => n.admin.apply(Resources.cameras, { apiVersion: API_VERSION, kind: 'Camera', metadata: { name: 'door', namespace: ns }, status: s } as KubeObject, { fieldManager: 'vigil-operator', force: true, subresource: 'status' });
  for (let i = 0; i < 6; i++) {
    phase = `move ${i} started`;
    await status({ node: 'node-b', handoverFrom: 'node-a', phase: 'Assigned' });
    await n.until(() => n.view.recorded.handingOver.list().length === 1 && n.view.assigned.list().length === 0, 'handing over');
    phase = `move ${i} called off`;
    await status({ node: 'node-a', handoverFrom: null, phase: 'Recording' });
    await n.until(() => n.view.assigned.list().length === 1 && n.view.recorded.handingOver.list().length === 0, 'assigned again');
  }
  assert.deepEqual(absences, [], 'the camera was never missing from what node-a records');
  phase = 'moved';
  await status({ node: 'node-b', handoverFrom: null, phase: 'Recording' });
  await n.until(() => n.view.recordedHere().length === 0, 'the move completed: node-a records nothing');
  assert.deepEqual(absences, ['moved']);
});
