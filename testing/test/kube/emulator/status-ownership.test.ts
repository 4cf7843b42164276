// Two writers, one status: server-side apply on a custom resource's status subresource (field managers, conflicts worded as kube-apiserver words them, force, removal), and merge / strategic merge patches of status.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { FIXTURES, ok, startEmulatorFixture, type EmulatorFixture } from './emulator-fixture.js';

type Camera = { status?: Record<string, unknown>; spec: Record<string, unknown>; metadata: { managedFields?: Array<{ manager: string; operation: string; subresource?: string; fieldsV1: Record<string, unknown> }> } };
type Status = { code: number; reason: string; message: string; details?: { causes?: Array<{ reason: string; message: string; field: string }> } };

const CAMERA = '/apis/vigil.io/v1alpha1/namespaces/default/cameras/porch';

function apply(f: EmulatorFixture, path: string, manager: string, body: unknown, force = false) {
  return f.request('PATCH', `${path}?fieldManager=${manager}${force ? '&force=true' : ''}`, body, { contentType: 'application/apply-patch+yaml' });
}

const statusOf = (status: Record<string, unknown>) => ({ apiVersion: 'vigil.io/v1alpha1', kind: 'Camera', metadata: { name: 'porch' }, status });

test('the operator and the recorder each own their status fields by server-side apply; a conflict is refused with the real message until forced', async (t) => {
  const f = await startEmulatorFixture(t);
  ok(await f.kubectl(['apply', '-f', join(FIXTURES, 'camera-crd.yaml')]), 'crd');
  ok(await f.kubectl(['wait', '--for=condition=Established', 'crd/cameras.vigil.io', '--timeout=30s']), 'established');
  ok(await f.kubectl(['apply', '--server-side', '-f', join(FIXTURES, 'camera-porch.yaml')]), 'camera');

  assert.equal((await apply(f, `${CAMERA}/status`, 'vigil-operator', statusOf({ node: 'n1', phase: 'Assigned' }))).status, 200);
  const recorderStatus = { url: 'http://n1:9997', conditions: [{ type: 'Recording', status: 'True', reason: 'Streaming' }] };
  assert.equal((await apply(f, `${CAMERA}/status`, 'vigil-recorder', statusOf(recorderStatus))).status, 200);
  let camera = (await f.request('GET', CAMERA)).body as Camera;
  assert.deepEqual(camera.status, { node: 'n1', phase: 'Assigned', ...recorderStatus });
  const managers = camera.metadata.managedFields?.map((m) => `${m.manager}/${m.operation}/${m.subresource ?? ''}`).sort();
  assert.deepEqual(managers, ['kubectl/Apply/', 'vigil-operator/Apply/status', 'vigil-recorder/Apply/status']);
  const recorderFields = camera.metadata.managedFields?.find((m) => m.manager === 'vigil-recorder')?.fieldsV1;
  assert.deepEqual(recorderFields, { 'f:status': { 'f:url': {}, 'f:conditions': { 'k:{"type":"Recording"}': { '.': {}, 'f:type': {}, 'f:status': {}, 'f:reason': {} } } } });

  // Re-applying one's own fields never conflicts; changing the other's does.
  assert.equal((await apply(f, `${CAMERA}/status`, 'vigil-recorder', statusOf({ ...recorderStatus, url: 'http://n1:9998' }))).status, 200);
  const conflict = await apply(f, `${CAMERA}/status`, 'vigil-recorder', statusOf({ ...recorderStatus, phase: 'Recording' }));
  assert.equal(conflict.status, 409);
  assert.deepEqual(conflict.body, {
    kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'Conflict', code: 409,
    message: 'Apply failed with 1 conflict: conflict with "vigil-operator" with subresource "status": .status.phase',
    details: { causes: [{ reason: 'FieldManagerConflict', message: 'conflict with "vigil-operator" with subresource "status"', field: '.status.phase' }] },
  });
  const two = (await apply(f, `${CAMERA}/status`, 'vigil-recorder', statusOf({ ...recorderStatus, phase: 'Recording', node: 'n2' }))).body as Status;
  assert.equal(two.message, 'Apply failed with 2 conflicts: conflicts with "vigil-operator" with subresource "status":\n- .status.node\n- .status.phase');

  // An Update (kubectl patch) is named with its API version.
  ok(await f.kubectl(['patch', 'camera', 'porch', '--subresource=status', '--type=merge', '-p', '{"status":{"url":"http://other:9997"}}']), 'kubectl patch status');
  const updated = (await apply(f, `${CAMERA}/status`, 'vigil-recorder', statusOf(recorderStatus))).body as Status;
  assert.equal(updated.message, 'Apply failed with 1 conflict: conflict with "kubectl-patch" with subresource "status" using vigil.io/v1alpha1: .status.url');

  // Forced, the field changes hands.
  assert.equal((await apply(f, `${CAMERA}/status`, 'vigil-recorder', statusOf({ ...recorderStatus, phase: 'Recording' }), true)).status, 200);
  camera = (await f.request('GET', CAMERA)).body as Camera;
  assert.equal(camera.status?.phase, 'Recording');
  assert.deepEqual(camera.metadata.managedFields?.find((m) => m.manager === 'vigil-operator')?.fieldsV1, { 'f:status': { 'f:node': {} } });

  // A field its manager stops applying goes (when nobody else owns it); the main resource ignores status.
  assert.equal((await apply(f, `${CAMERA}/status`, 'vigil-operator', statusOf({}))).status, 200);
  camera = (await f.request('GET', CAMERA)).body as Camera;
  assert.equal(camera.status?.node, undefined);
  assert.equal((await apply(f, CAMERA, 'kubectl', { apiVersion: 'vigil.io/v1alpha1', kind: 'Camera', metadata: { name: 'porch' }, spec: camera.spec, status: { phase: 'Failed' } }, true)).status, 200);
  assert.equal(((await f.request('GET', CAMERA)).body as Camera).status?.phase, 'Recording');
  // Applying the status of a Camera that does not exist is a 404, not a create.
  assert.equal((await apply(f, '/apis/vigil.io/v1alpha1/namespaces/default/cameras/ghost/status', 'vigil-operator', { ...statusOf({ phase: 'Pending' }), metadata: { name: 'ghost' } })).status, 404);
});

test('merge patches of status delete with null; custom resources refuse strategic merge (415) on status too; a Pod\'s status conditions merge by type', async (t) => {
  const f = await startEmulatorFixture(t);
  ok(await f.kubectl(['apply', '-f', join(FIXTURES, 'camera-crd.yaml')]), 'crd');
  ok(await f.kubectl(['wait', '--for=condition=Established', 'crd/cameras.vigil.io', '--timeout=30s']), 'established');
  ok(await f.kubectl(['apply', '-f', join(FIXTURES, 'camera-porch.yaml')]), 'camera');
  const merge = (body: unknown, type = 'application/merge-patch+json') => f.request('PATCH', `${CAMERA}/status`, body, { contentType: type });
  assert.equal((await merge({ status: { node: 'n1', phase: 'Assigned', url: 'http://n1' } })).status, 200);
  assert.deepEqual(((await merge({ status: { url: null } })).body as Camera).status, { node: 'n1', phase: 'Assigned' });
  const smp = await merge({ status: { phase: 'Recording' } }, 'application/strategic-merge-patch+json');
  assert.equal(smp.status, 415);
  const jsonPatch = await merge([{ op: 'replace', path: '/status/phase', value: 'Recording' }], 'application/json-patch+json');
  assert.equal((jsonPatch.body as Camera).status?.phase, 'Recording');

  await f.request('POST', '/api/v1/namespaces/default/pods', { metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'busybox:1' }] } });
  const podStatus = (body: unknown) => f.request('PATCH', '/api/v1/namespaces/default/pods/p/status', body, { contentType: 'application/strategic-merge-patch+json' });
  await podStatus({ status: { conditions: [{ type: 'Ready', status: 'False' }, { type: 'PodScheduled', status: 'True' }] } });
  const merged = (await podStatus({ status: { conditions: [{ type: 'Ready', status: 'True' }] } })).body as { status: { conditions: Array<{ type: string; status: string }> } };
  assert.deepEqual(merged.status.conditions.map((c) => `${c.type}=${c.status}`).sort(), ['PodScheduled=True', 'Ready=True']);
});
