// isDerivedFrom: an object as kube-apiserver returns it (its key order, its defaults) is what the operator wants when
// every field the operator sets holds the same value; a real change is still seen.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isDerivedFrom } from '../src/index.js';

const wantedBinding = {
  roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'vigil-recorder-node-a' },
  subjects: [{ kind: 'ServiceAccount', apiGroup: '', name: 'vigil-recorder-node-a', namespace: 'vigil' }],
};
// What the server answers: keys in its own order, the empty apiGroup of a ServiceAccount subject dropped.
const returnedBinding = {
  subjects: [{ namespace: 'vigil', name: 'vigil-recorder-node-a', kind: 'ServiceAccount' }],
  roleRef: { name: 'vigil-recorder-node-a', kind: 'Role', apiGroup: 'rbac.authorization.k8s.io' },
};

test('the server\'s key order and dropped empty defaults are no change', () => {
  assert.equal(JSON.stringify(wantedBinding) === JSON.stringify(returnedBinding), false, 'a text comparison would PUT it again');
  assert.equal(isDerivedFrom(wantedBinding, returnedBinding), true);
});

test('defaults the server adds (a port\'s protocol, a cluster IP) are no change', () => {
  const want = { ports: [{ name: 'https', port: 9997, targetPort: 9997 }], selector: { app: 'vigil' } };
  const have = { clusterIP: '10.96.0.12', ports: [{ protocol: 'TCP', targetPort: 9997, port: 9997, name: 'https' }], selector: { app: 'vigil' }, type: 'ClusterIP' };
  assert.equal(isDerivedFrom(want, have), true);
});

test('a changed value, a missing field, a removed or added list item are changes', () => {
  assert.equal(isDerivedFrom(wantedBinding, { ...returnedBinding, roleRef: { ...returnedBinding.roleRef, name: 'other' } }), false);
  assert.equal(isDerivedFrom({ selector: { app: 'vigil' } }, { selector: {} }), false);
  assert.equal(isDerivedFrom({ subjects: [{ name: 'a' }, { name: 'b' }] }, { subjects: [{ name: 'a' }] }), false);
  assert.equal(isDerivedFrom({ subjects: [{ name: 'a' }] }, { subjects: [{ name: 'a' }, { name: 'b' }] }), false);
  assert.equal(isDerivedFrom({ port: 9997 }, { port: '9997' }), false);
});
