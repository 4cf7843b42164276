// The RBAC rule files the chart renders and the tests apply: well-formed, split by scope, and without wildcards.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadRules } from '@vigil/testing/kube/test-cluster';

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
    for (const res of clusterResources) assert.ok(['recordernodes', 'recordernodes/status', 'recordernodes/finalizers', 'nodes'].includes(res), res);
    for (const res of rules.namespacedRules.flatMap((r) => r.resources ?? [])) assert.ok(!['recordernodes', 'nodes'].includes(res), res);
    // In `default` only what Events about cluster-scoped objects need: creating and patching Events.
    for (const rule of rules.defaultNamespaceRules ?? []) assert.deepEqual([rule.apiGroups, rule.resources, [...(rule.verbs ?? [])].sort()], [[''], ['events'], ['create', 'patch']]);
  });
}
