// The Event namespace rule of kube-apiserver (pkg/apis/core/validation/events.go), through core/v1 and events.k8s.io/v1, with the real 422 answers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FIXTURES, ok, startEmulatorFixture } from './emulator-fixture.js';
import { join } from 'node:path';

const now = () => new Date().toISOString();
const microNow = () => new Date().toISOString().replace('Z', '000Z');

test('an Event about a cluster-scoped object must be in default, a namespaced one in its object\'s namespace; the newer form also needs its reporting fields', async (t) => {
  const f = await startEmulatorFixture(t);
  ok(await f.kubectl(['apply', '-f', join(FIXTURES, 'recordernode-crd.yaml')]), 'crd');
  ok(await f.kubectl(['create', 'namespace', 'vigil']), 'ns');
  const legacy = (namespace: string, involvedNamespace?: string) => ({
    apiVersion: 'v1', kind: 'Event', metadata: { name: `n1.${namespace}`, namespace },
    involvedObject: { apiVersion: 'vigil.io/v1alpha1', kind: 'RecorderNode', name: 'n1', ...(involvedNamespace !== undefined ? { namespace: involvedNamespace } : {}) },
    reason: 'NodeSilent', message: 'no heartbeat', type: 'Warning', firstTimestamp: now(), lastTimestamp: now(), count: 1, source: { component: 'vigil-operator' },
  });
  // What Vigil's operator used to write: a RecorderNode Event in the release namespace.
  const refused = await f.kubectl(['create', '-f', '-'], { input: JSON.stringify(legacy('vigil')) });
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /The Event "n1.vigil" is invalid: involvedObject.namespace: Invalid value: "": does not match event.namespace/);
  const answer = await f.request('POST', '/api/v1/namespaces/vigil/events', legacy('vigil'));
  assert.equal(answer.status, 422);
  assert.deepEqual((answer.body as { details: unknown }).details, {
    name: 'n1.vigil', group: '', kind: 'Event',
    causes: [{ reason: 'FieldValueInvalid', message: 'Invalid value: "": does not match event.namespace', field: 'involvedObject.namespace' }],
  });
  assert.equal((await f.request('POST', '/api/v1/namespaces/default/events', legacy('default'))).status, 201);
  // A namespaced object's Event elsewhere is refused too.
  const elsewhere = await f.request('POST', '/api/v1/namespaces/default/events', { ...legacy('default', 'vigil'), metadata: { name: 'cam.1', namespace: 'default' } });
  assert.equal(elsewhere.status, 422);
  assert.equal((elsewhere.body as { message: string }).message, 'Event "cam.1" is invalid: involvedObject.namespace: Invalid value: "vigil": does not match event.namespace');

  // With eventTime (what client-go's newer recorders and Vigil's operator write): default or kube-system, and the reporting fields.
  const newer = { ...legacy('vigil'), metadata: { name: 'n1.newer', namespace: 'vigil' }, eventTime: microNow() };
  const missing = await f.request('POST', '/api/v1/namespaces/vigil/events', newer);
  // (kube-apiserver also runs the qualified-name check on the empty reportingController, and says so.)
  assert.deepEqual((missing.body as { details: { causes: Array<{ field: string; message: string }> } }).details.causes.map((c) => `${c.field}: ${c.message.split(':')[0]}`), [
    'involvedObject.namespace: Invalid value', 'reportingController: Required value', 'reportingController: Invalid value', 'reportingController: Invalid value',
    'reportingInstance: Required value', 'action: Required value',
  ]);
  const complete = { ...newer, reportingComponent: 'vigil-operator', reportingInstance: 'vigil-operator-0', action: 'NodeSilent' };
  assert.equal((await f.request('POST', '/api/v1/namespaces/kube-system/events', { ...complete, metadata: { name: 'n1.ks', namespace: 'kube-system' } })).status, 201);
  assert.equal((await f.request('POST', '/api/v1/namespaces/vigil/events', complete)).status, 422);

  // events.k8s.io/v1 names the kind it was asked for and adds its own rules.
  const v1 = {
    apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { name: 'n1.v1', namespace: 'vigil' }, eventTime: microNow(),
    regarding: { apiVersion: 'vigil.io/v1alpha1', kind: 'RecorderNode', name: 'n1' }, reason: 'NodeSilent', note: 'no heartbeat', type: 'Warning',
    action: 'Watch', reportingController: 'vigil.io/operator', reportingInstance: 'op-0', deprecatedCount: 3,
  };
  const v1Refused = await f.kubectl(['create', '-f', '-'], { input: JSON.stringify(v1) });
  assert.match(v1Refused.stderr, /The Event "n1.v1" is invalid: \n\* involvedObject.namespace: Invalid value: "": does not match event.namespace\n\* count: Invalid value: "": needs to be unset/);
  const { deprecatedCount: _count, ...clean } = v1;
  ok(await f.kubectl(['create', '-f', '-'], { input: JSON.stringify({ ...clean, metadata: { name: 'n1.v1', namespace: 'default' } }) }), 'events.k8s.io in default');
  assert.match(ok(await f.kubectl(['get', 'events', '-n', 'default', '--field-selector', 'involvedObject.kind=RecorderNode', '-o', 'name']), 'list'), /event\/n1.default\nevent\/n1.v1/);
});
