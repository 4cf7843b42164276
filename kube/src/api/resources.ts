// The API resources Vigil reads and writes: group, version, plural, kind and scope of each.
import { API_VERSION, CAMERA_KIND, CAMERA_PLURAL, GROUP, RECORDER_NODE_KIND, RECORDER_NODE_PLURAL, VERSION } from '@vigil/crds';

export interface ResourceType {
  /** '' for the core group. */
  group: string;
  version: string;
  plural: string;
  kind: string;
  namespaced: boolean;
}

export function apiVersionOf(type: ResourceType): string {
  return type.group === '' ? type.version : `${type.group}/${type.version}`;
}

/** The collection path: /api/v1/namespaces/ns/pods, /apis/vigil.io/v1alpha1/recordernodes. */
export function collectionPath(type: ResourceType, namespace?: string): string {
  const base = type.group === '' ? `/api/${type.version}` : `/apis/${type.group}/${type.version}`;
  const ns = type.namespaced && namespace !== undefined ? `/namespaces/${encodeURIComponent(namespace)}` : '';
  return `${base}${ns}/${type.plural}`;
}

export function objectPath(type: ResourceType, namespace: string | undefined, name: string, subresource?: string): string {
  return `${collectionPath(type, namespace)}/${encodeURIComponent(name)}${subresource ? `/${subresource}` : ''}`;
}

export const Resources = {
  cameras: { group: GROUP, version: VERSION, plural: CAMERA_PLURAL, kind: CAMERA_KIND, namespaced: true },
  recorderNodes: { group: GROUP, version: VERSION, plural: RECORDER_NODE_PLURAL, kind: RECORDER_NODE_KIND, namespaced: false },
  nodes: { group: '', version: 'v1', plural: 'nodes', kind: 'Node', namespaced: false },
  pods: { group: '', version: 'v1', plural: 'pods', kind: 'Pod', namespaced: true },
  services: { group: '', version: 'v1', plural: 'services', kind: 'Service', namespaced: true },
  configMaps: { group: '', version: 'v1', plural: 'configmaps', kind: 'ConfigMap', namespaced: true },
  secrets: { group: '', version: 'v1', plural: 'secrets', kind: 'Secret', namespaced: true },
  events: { group: '', version: 'v1', plural: 'events', kind: 'Event', namespaced: true },
  ingresses: { group: 'networking.k8s.io', version: 'v1', plural: 'ingresses', kind: 'Ingress', namespaced: true },
  leases: { group: 'coordination.k8s.io', version: 'v1', plural: 'leases', kind: 'Lease', namespaced: true },
  clusterRoles: { group: 'rbac.authorization.k8s.io', version: 'v1', plural: 'clusterroles', kind: 'ClusterRole', namespaced: false },
  serviceAccounts: { group: '', version: 'v1', plural: 'serviceaccounts', kind: 'ServiceAccount', namespaced: true },
  roles: { group: 'rbac.authorization.k8s.io', version: 'v1', plural: 'roles', kind: 'Role', namespaced: true },
  roleBindings: { group: 'rbac.authorization.k8s.io', version: 'v1', plural: 'rolebindings', kind: 'RoleBinding', namespaced: true },
  clusterRoleBindings: { group: 'rbac.authorization.k8s.io', version: 'v1', plural: 'clusterrolebindings', kind: 'ClusterRoleBinding', namespaced: false },
  certificateSigningRequests: { group: 'certificates.k8s.io', version: 'v1', plural: 'certificatesigningrequests', kind: 'CertificateSigningRequest', namespaced: false },
} as const satisfies Record<string, ResourceType>;

export const VIGIL_API_VERSION = API_VERSION;
