// Test support: a node's recorder identity made as vigil-operator makes it (its ServiceAccount, a Role for its own
// heartbeat Lease and camera credentials Secret, the bindings to that Role and to the chart's recorder rules (its subject
// in the chart's recorder ClusterRoleBinding), the empty
// Lease), for tests that run a recorder without an operator. operator/test/rbac.test.ts and
// operator/test/controllers/recorder-identity.test.ts hold the operator to the same shape.
import type { CoordinationV1Api, CoreV1Api, RbacAuthorizationV1Api } from '@kubernetes/client-node';

const RBAC = 'rbac.authorization.k8s.io';

type PolicyRule = { apiGroups: string[]; resources: string[]; resourceNames: string[]; verbs: string[] };

/** A rule of a node's own Role: its heartbeat Lease, by name. */
export function ownLeaseRule(node: string): PolicyRule {
  return { apiGroups: ['coordination.k8s.io'], resources: ['leases'], resourceNames: [`vigil-node-${node}`], verbs: ['get', 'update', 'patch', 'delete'] };
}

/** A rule of a node's own Role: its camera credentials Secret, by name (read, and listed or watched by its name). */
export function ownCredentialsRule(node: string): PolicyRule {
  return { apiGroups: [''], resources: ['secrets'], resourceNames: [`vigil-camera-credentials-${node}`], verbs: ['get', 'list', 'watch'] };
}

/** The rules of a node's own Role, as the operator makes it. */
export function ownRules(node: string): PolicyRule[] {
  return [ownLeaseRule(node), ownCredentialsRule(node)];
}

async function createIfMissing(create: () => Promise<unknown>): Promise<void> {
  try {
    await create();
  } catch (err) {
    if ((err as { code?: number }).code !== 409) throw err;
  }
}

export async function provisionRecorderIdentity(
  apis: { core: CoreV1Api; rbac: RbacAuthorizationV1Api; coordination: CoordinationV1Api },
  namespace: string,
  node: string,
  shared: { clusterRole: string; role: string },
): Promise<void> {
  const name = `vigil-recorder-${node}`;
  const subjects = [{ kind: 'ServiceAccount', name, namespace }];
  await createIfMissing(() => apis.core.createNamespacedServiceAccount({ namespace, body: { metadata: { name } } }));
  await createIfMissing(() => apis.rbac.createNamespacedRole({ namespace, body: { metadata: { name }, rules: ownRules(node) } }));
  await createIfMissing(() => apis.rbac.createNamespacedRoleBinding({ namespace, body: { metadata: { name }, roleRef: { apiGroup: RBAC, kind: 'Role', name }, subjects } }));
  await createIfMissing(() => apis.rbac.createNamespacedRoleBinding({ namespace, body: { metadata: { name: `${name}-shared` }, roleRef: { apiGroup: RBAC, kind: 'Role', name: shared.role }, subjects } }));
  // The node's ServiceAccount added to the chart's recorder ClusterRoleBinding (named as the ClusterRole), as the operator does.
  const binding = await apis.rbac.readClusterRoleBinding({ name: shared.clusterRole });
  if (!(binding.subjects ?? []).some((s) => s.name === name && s.namespace === namespace)) {
    await apis.rbac.replaceClusterRoleBinding({ name: shared.clusterRole, body: { ...binding, subjects: [...(binding.subjects ?? []), ...subjects] } });
  }
  await createIfMissing(() => apis.coordination.createNamespacedLease({ namespace, body: { metadata: { name: `vigil-node-${node}` }, spec: { holderIdentity: node, leaseDurationSeconds: 15 } } }));
}
