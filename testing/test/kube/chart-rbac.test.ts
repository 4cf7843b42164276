// The chart's own RBAC rule files (helm/vigil/rbac) enforced on ServiceAccount tokens from `kubectl create token`: every rule granted where it is granted, every verb it does not grant refused with the real 403.
// The recorder's token is a node's own ServiceAccount, with the shared recorder rules and its own heartbeat Lease.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestCluster, loadRules, type TestCluster } from '../../src/kube/test-cluster.js';
import { ownRules } from '../../src/kube/recorder-identity.js';

const VERBS = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection'];

interface Scope {
  namespace?: string;
  rules: Array<{ apiGroups?: string[]; resources?: string[]; verbs?: string[]; resourceNames?: string[] }>;
}

async function review(cluster: TestCluster, token: string, attrs: Record<string, string>): Promise<boolean> {
  const res = await cluster.controlPlane.fetch(`/apis/authorization.k8s.io/v1/selfsubjectaccessreviews`, {
    method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec: { resourceAttributes: attrs } }),
  });
  return ((await res.json()) as { status: { allowed: boolean } }).status.allowed;
}

for (const who of ['operator', 'recorder'] as const) {
  test(`${who}: a token from kubectl create token has exactly what helm/vigil/rbac/${who}-rules.yaml grants, where it grants it`, async (t) => {
    const cluster = await startTestCluster(t);
    // The operator's account is the chart's; a recorder's is its node's, as the operator makes it.
    if (who === 'recorder') await cluster.nodeKubeconfig('node-a', { provision: true });
    const account = who === 'operator' ? 'vigil-operator' : 'vigil-recorder-node-a';
    const token = (await cluster.kubectl('create', 'token', account, '-n', cluster.namespace)).trim();
    const rules = loadRules(who);
    const namespaced = who === 'recorder' ? [...rules.namespacedRules, ...ownRules('node-a')] : rules.namespacedRules;
    const scopes: Scope[] = [{ rules: rules.clusterRules }, { namespace: cluster.namespace, rules: namespaced }, ...(rules.defaultNamespaceRules ? [{ namespace: 'default', rules: rules.defaultNamespaceRules }] : [])];
    const granted = new Set<string>();
    for (const scope of scopes) {
      for (const rule of scope.rules) {
        for (const group of rule.apiGroups ?? []) {
          for (const full of rule.resources ?? []) {
            const [resource, subresource] = full.split('/') as [string, string | undefined];
            for (const verb of rule.verbs ?? []) {
              const names = rule.resourceNames?.length ? rule.resourceNames : [undefined];
              for (const name of names) {
                const attrs = { verb, group, resource, ...(subresource ? { subresource } : {}), ...(scope.namespace ? { namespace: scope.namespace } : {}), ...(name ? { name } : {}) };
                assert.ok(await review(cluster, token, attrs), `${account} may ${JSON.stringify(attrs)}`);
              }
              granted.add(`${scope.namespace ?? ''}|${group}|${full}|${verb}`);
            }
          }
        }
      }
    }
    // Every verb the files do not grant on a resource they name is refused, in that scope and in the others.
    for (const scope of scopes) {
      for (const rule of scope.rules) {
        for (const group of rule.apiGroups ?? []) {
          for (const full of rule.resources ?? []) {
            const [resource, subresource] = full.split('/') as [string, string | undefined];
            for (const verb of VERBS.filter((v) => !granted.has(`${scope.namespace ?? ''}|${group}|${full}|${v}`) && !(rule.resourceNames?.length))) {
              const attrs = { verb, group, resource, ...(subresource ? { subresource } : {}), ...(scope.namespace ? { namespace: scope.namespace } : {}) };
              assert.equal(await review(cluster, token, attrs), false, `${account} may not ${JSON.stringify(attrs)}`);
            }
          }
        }
      }
    }
    // What a Role grants in its namespace is not granted in another one (unless the ClusterRole grants it too).
    for (const scope of scopes.filter((s) => s.namespace !== undefined)) {
      for (const rule of scope.rules) {
        for (const group of rule.apiGroups ?? []) {
          for (const full of rule.resources ?? []) {
            const [resource, subresource] = full.split('/') as [string, string | undefined];
            for (const verb of (rule.verbs ?? []).filter((v) => !granted.has(`|${group}|${full}|${v}`))) {
              const attrs = { verb, group, resource, ...(subresource ? { subresource } : {}), namespace: 'kube-system' };
              assert.equal(await review(cluster, token, attrs), false, `${account} may not ${JSON.stringify(attrs)}`);
            }
          }
        }
      }
    }
    // And a real request the rules do not allow answers the real 403.
    const denied = await cluster.controlPlane.fetch(`/apis/apps/v1/namespaces/${cluster.namespace}/deployments/vigil-operator`, { method: 'DELETE', headers: { authorization: `Bearer ${token}` } });
    assert.equal(denied.status, 403);
    assert.equal(((await denied.json()) as { message: string }).message, `deployments.apps "vigil-operator" is forbidden: User "system:serviceaccount:${cluster.namespace}:${account}" cannot delete resource "deployments" in API group "apps" in the namespace "${cluster.namespace}"`);
  });
}
