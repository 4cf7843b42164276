// The RBAC rule files the chart renders and the tests apply: well-formed, split by scope, without wildcards — and the
// operator holds every permission it binds to a node's recorder (Kubernetes refuses a binding that grants more).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadRules } from '@vigil/testing/kube/test-cluster';
import { ownCredentialsRule, ownLeaseRule, ownRules } from '@vigil/testing/kube/recorder-identity';
import { desiredRecorderIdentity } from '../src/desired/recorder-identity.js';
import { parseSettings } from '../src/config/settings.js';
import { recorderNode } from './support/objects.js';

interface Rule { apiGroups?: string[]; resources?: string[]; verbs?: string[]; resourceNames?: string[] }

for (const who of ['operator', 'recorder'] as const) {
  test(`helm/vigil/rbac/${who}-rules.yaml: cluster and namespaced PolicyRules, no wildcards`, () => {
    const rules = loadRules(who);
    assert.ok(Array.isArray(rules.clusterRules) && rules.clusterRules.length > 0);
    assert.ok(Array.isArray(rules.namespacedRules) && rules.namespacedRules.length > 0);
    for (const rule of [...rules.clusterRules, ...rules.namespacedRules, ...(rules.defaultNamespaceRules ?? [])]) {
      for (const list of [rule.apiGroups, rule.resources, rule.verbs]) {
        assert.ok(Array.isArray(list) && list.length > 0, JSON.stringify(rule));
        assert.ok(!list.includes('*'), `wildcard in ${JSON.stringify(rule)}`);
      }
    }
    const clusterResources = rules.clusterRules.flatMap((r) => r.resources ?? []);
    // Cluster-scoped kinds only in clusterRules, namespaced only in namespacedRules.
    const clusterScoped = ['recordernodes', 'recordernodes/status', 'recordernodes/finalizers', 'nodes', 'clusterrolebindings', 'certificatesigningrequests', 'certificatesigningrequests/approval', 'certificatesigningrequests/status', 'signers'];
    for (const res of clusterResources) assert.ok(clusterScoped.includes(res), res);
    for (const res of rules.namespacedRules.flatMap((r) => r.resources ?? [])) assert.ok(!clusterScoped.includes(res), res);
    // In `default` only what Events about cluster-scoped objects need: creating and patching Events.
    for (const rule of rules.defaultNamespaceRules ?? []) assert.deepEqual([rule.apiGroups, rule.resources, [...(rule.verbs ?? [])].sort()], [[''], ['events'], ['create', 'patch']]);
  });
}

/** Whether `rules` allow `verb` on `group/resource` (named `name`, when the request names one). */
function allows(rules: Rule[], group: string, resource: string, verb: string, name?: string): boolean {
  return rules.some((r) => (r.apiGroups ?? []).includes(group) && (r.resources ?? []).includes(resource) && (r.verbs ?? []).includes(verb)
    && (r.resourceNames === undefined || r.resourceNames.length === 0 || (name !== undefined && r.resourceNames.includes(name))));
}

test('the operator holds every permission it grants a node\'s recorder (the shared rules and the node\'s own Role)', () => {
  const operator = loadRules('operator');
  const recorder = loadRules('recorder');
  const settings = parseSettings({ recorder: { image: 'v:1', configMap: 'c', rbac: { clusterRole: 'vigil-vigil-recorder', role: 'vigil-recorder' }, secrets: { apiTokens: 't', clusterToken: 'c' } } });
  const own = desiredRecorderIdentity(recorderNode('node-a'), settings, 'vigil').role.rules ?? [];
  // The test support provisions the same Role the operator makes (for recorder tests that run without an operator).
  assert.deepEqual(own, ownRules('node-a'));
  const missing: string[] = [];
  const check = (granted: Rule[], holder: Rule[]) => {
    for (const r of granted) {
      for (const group of r.apiGroups ?? []) for (const resource of r.resources ?? []) for (const verb of r.verbs ?? []) {
        const names = r.resourceNames && r.resourceNames.length > 0 ? r.resourceNames : [undefined];
        for (const name of names) if (!allows(holder, group, resource, verb, name)) missing.push(`${verb} ${group || 'core'}/${resource}${name ? ` ${name}` : ''}`);
      }
    }
  };
  check(recorder.clusterRules, operator.clusterRules);
  // Namespaced grants are covered by the operator's Role or its ClusterRole.
  check([...recorder.namespacedRules, ...own], [...operator.namespacedRules, ...operator.clusterRules]);
  assert.deepEqual(missing, []);
});

test('a node\'s recorder may write nothing of the membership: no RecorderNode write, no Lease but its own', () => {
  const recorder = loadRules('recorder');
  const all = [...recorder.clusterRules, ...recorder.namespacedRules];
  for (const verb of ['create', 'update', 'patch', 'delete']) {
    assert.equal(allows(all, 'vigil.io', 'recordernodes', verb), false, `${verb} recordernodes`);
    assert.equal(allows(all, 'vigil.io', 'recordernodes/status', verb), false, `${verb} recordernodes/status`);
    assert.equal(allows(all, 'coordination.k8s.io', 'leases', verb, 'vigil-operator'), false, `${verb} the operator's Lease`);
  }
  assert.equal(allows([ownLeaseRule('node-a')], 'coordination.k8s.io', 'leases', 'update', 'vigil-node-node-b'), false);
  assert.equal(allows([ownLeaseRule('node-a')], 'coordination.k8s.io', 'leases', 'update', 'vigil-node-node-a'), true);
});

test('no Secret is shared by the recorders: each node reads its own camera credentials Secret, by name, and no other', () => {
  const recorder = loadRules('recorder');
  const shared = [...recorder.clusterRules, ...recorder.namespacedRules];
  assert.equal(shared.some((r) => (r.resources ?? []).includes('secrets')), false, 'the shared recorder rules grant no Secret');
  const settings = parseSettings({ recorder: { image: 'v:1', configMap: 'c', rbac: { clusterRole: 'vigil-vigil-recorder', role: 'vigil-recorder' }, secrets: { apiTokens: 't', clusterToken: 'c' } } });
  const own = desiredRecorderIdentity(recorderNode('node-a'), settings, 'vigil').role.rules ?? [];
  assert.deepEqual(own.filter((r) => r.resources?.includes('secrets')), [ownCredentialsRule('node-a')]);
  for (const verb of ['get', 'list', 'watch']) {
    assert.equal(allows(own, '', 'secrets', verb, 'vigil-camera-credentials-node-a'), true, verb);
    for (const other of ['vigil-camera-credentials-node-b', 'vigil-camera-credentials', 'vigil-admin-token']) assert.equal(allows(own, '', 'secrets', verb, other), false, `${verb} ${other}`);
  }
  for (const verb of ['create', 'update', 'patch', 'delete']) assert.equal(allows(own, '', 'secrets', verb, 'vigil-camera-credentials-node-a'), false, verb);
});
