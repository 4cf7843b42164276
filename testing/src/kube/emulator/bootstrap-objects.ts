// What a fresh cluster holds: the system namespaces and the bootstrap RBAC policy (cluster-admin, discovery, basic-user, view/edit/admin).
import type { ObjectApi } from './object-api.js';
import type { ResourceRegistry } from './resource-registry.js';
import type { ResourceType } from './types.js';

const READ = ['get', 'list', 'watch'];
const WRITE = ['create', 'delete', 'deletecollection', 'patch', 'update'];
const CORE_READABLE = ['configmaps', 'endpoints', 'persistentvolumeclaims', 'pods', 'pods/log', 'pods/status', 'replicationcontrollers', 'services', 'services/status', 'serviceaccounts', 'events', 'limitranges', 'resourcequotas', 'namespaces', 'namespaces/status'];
const WORKLOADS = ['deployments', 'deployments/scale', 'deployments/status', 'statefulsets', 'statefulsets/scale', 'statefulsets/status', 'replicasets', 'replicasets/scale', 'replicasets/status', 'daemonsets', 'daemonsets/status'];

function clusterRole(name: string, rules: unknown[], labels: Record<string, string> = {}, aggregateFrom?: string): Record<string, unknown> {
  return {
    metadata: { name, labels: { 'kubernetes.io/bootstrapping': 'rbac-defaults', ...labels }, annotations: { 'rbac.authorization.kubernetes.io/autoupdate': 'true' } },
    ...(aggregateFrom !== undefined ? { aggregationRule: { clusterRoleSelectors: [{ matchLabels: { [aggregateFrom]: 'true' } }] } } : {}),
    rules,
  };
}

function binding(name: string, role: string, groups: string[]): Record<string, unknown> {
  return {
    metadata: { name, labels: { 'kubernetes.io/bootstrapping': 'rbac-defaults' }, annotations: { 'rbac.authorization.kubernetes.io/autoupdate': 'true' } },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
    subjects: groups.map((g) => ({ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: g })),
  };
}

export function createBootstrapObjects(api: ObjectApi, registry: ResourceRegistry): void {
  const t = (group: string, plural: string): ResourceType => registry.lookup(group, 'v1', plural) as ResourceType;
  const namespaces = t('', 'namespaces');
  for (const name of ['default', 'kube-system', 'kube-public', 'kube-node-lease']) api.create(namespaces, undefined, { metadata: { name } });
  const roles = t('rbac.authorization.k8s.io', 'clusterroles');
  const bindings = t('rbac.authorization.k8s.io', 'clusterrolebindings');
  const rbacRoles = [
    clusterRole('cluster-admin', [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }, { nonResourceURLs: ['*'], verbs: ['*'] }]),
    clusterRole('system:discovery', [{ nonResourceURLs: ['/api', '/api/*', '/apis', '/apis/*', '/healthz', '/livez', '/openapi', '/openapi/*', '/readyz', '/version', '/version/'], verbs: ['get'] }]),
    clusterRole('system:public-info-viewer', [{ nonResourceURLs: ['/healthz', '/livez', '/readyz', '/version', '/version/'], verbs: ['get'] }]),
    clusterRole('system:basic-user', [
      { apiGroups: ['authorization.k8s.io'], resources: ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'], verbs: ['create'] },
      { apiGroups: ['authentication.k8s.io'], resources: ['selfsubjectreviews'], verbs: ['create'] },
    ]),
    clusterRole('view', [], {}, 'rbac.authorization.k8s.io/aggregate-to-view'),
    clusterRole('edit', [], { 'rbac.authorization.k8s.io/aggregate-to-admin': 'true' }, 'rbac.authorization.k8s.io/aggregate-to-edit'),
    clusterRole('admin', [], {}, 'rbac.authorization.k8s.io/aggregate-to-admin'),
    clusterRole('system:aggregate-to-view', [
      { apiGroups: [''], resources: CORE_READABLE, verbs: READ },
      { apiGroups: ['apps'], resources: WORKLOADS, verbs: READ },
      { apiGroups: ['batch'], resources: ['jobs', 'cronjobs'], verbs: READ },
      { apiGroups: ['networking.k8s.io'], resources: ['ingresses', 'networkpolicies'], verbs: READ },
      { apiGroups: ['policy'], resources: ['poddisruptionbudgets'], verbs: READ },
      { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: READ },
    ], { 'rbac.authorization.k8s.io/aggregate-to-view': 'true', 'rbac.authorization.k8s.io/aggregate-to-edit': 'true' }),
    clusterRole('system:aggregate-to-edit', [
      { apiGroups: [''], resources: ['configmaps', 'endpoints', 'persistentvolumeclaims', 'pods', 'services', 'serviceaccounts', 'secrets'], verbs: WRITE },
      { apiGroups: [''], resources: ['secrets'], verbs: READ },
      { apiGroups: ['apps'], resources: WORKLOADS, verbs: WRITE },
      { apiGroups: ['batch'], resources: ['jobs', 'cronjobs'], verbs: WRITE },
      { apiGroups: ['networking.k8s.io'], resources: ['ingresses', 'networkpolicies'], verbs: WRITE },
      { apiGroups: ['policy'], resources: ['poddisruptionbudgets'], verbs: WRITE },
      { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: WRITE },
    ], { 'rbac.authorization.k8s.io/aggregate-to-edit': 'true' }),
    clusterRole('system:aggregate-to-admin', [
      { apiGroups: ['rbac.authorization.k8s.io'], resources: ['roles', 'rolebindings'], verbs: [...READ, ...WRITE] },
      { apiGroups: ['authorization.k8s.io'], resources: ['localsubjectaccessreviews'], verbs: ['create'] },
    ], { 'rbac.authorization.k8s.io/aggregate-to-admin': 'true' }),
  ];
  for (const r of rbacRoles) api.create(roles, undefined, r);
  for (const b of [
    binding('cluster-admin', 'cluster-admin', ['system:masters']),
    binding('system:discovery', 'system:discovery', ['system:authenticated']),
    binding('system:public-info-viewer', 'system:public-info-viewer', ['system:authenticated', 'system:unauthenticated']),
    binding('system:basic-user', 'system:basic-user', ['system:authenticated']),
  ]) api.create(bindings, undefined, b);
}
