// RecorderNode + settings → the node's own identity (kubernetes.md §5 "Least privilege"): a ServiceAccount for its
// recorder Pod, a Role that lets it write its own heartbeat Lease and read its own camera credentials Secret and nothing
// else, the bindings to that Role and to the chart's shared recorder rules (read-only but for Camera status), and the
// heartbeat Lease itself, made empty so that the recorder never needs to create Leases.
import { createHash } from 'node:crypto';
import { NODE_LEASE_DURATION_SECONDS, nodeCredentialsSecretName, nodeLeaseName, nodeNameOf, type RecorderNode } from '@vigil/crds';
import type { Binding, Lease, Role, ServiceAccount } from '@vigil/kube';
import type { Settings } from '../config/settings.js';
import { recorderLabels, recorderName } from './names.js';
import { ownerOf } from './owner.js';

const RBAC_GROUP = 'rbac.authorization.k8s.io';

export interface RecorderIdentity {
  serviceAccount: ServiceAccount;
  /**
   * Its own heartbeat Lease: get, update, patch, delete (POST /cluster/leave deletes it) by name; its own camera
   * credentials Secret: get, list, watch by name (a list or watch with the field selector metadata.name=<it>).
   */
  role: Role;
  roleBinding: Binding;
  /** The chart's namespaced recorder Role (Cameras, their status, Leases read, Events). */
  sharedRoleBinding: Binding;
  /** The chart's recorder ClusterRole (RecorderNodes read). */
  clusterRoleBinding: Binding;
  lease: Lease;
}

/** The node's ServiceAccount (the same name as its Pod and Service). */
export function recorderServiceAccountName(rn: RecorderNode): string {
  return recorderName(nodeNameOf(rn));
}

/** A cluster-wide name for the node's ClusterRoleBinding: the chart's ClusterRole (unique per release) and the node. */
export function clusterRoleBindingName(clusterRole: string, node: string): string {
  const plain = `${clusterRole}:${node}`;
  return plain.length <= 253 ? plain : `${plain.slice(0, 244)}-${createHash('sha256').update(plain).digest('hex').slice(0, 8)}`;
}

export function desiredRecorderIdentity(rn: RecorderNode, settings: Settings, namespace: string): RecorderIdentity {
  const node = nodeNameOf(rn);
  const name = recorderServiceAccountName(rn);
  const labels = recorderLabels(node);
  // null for a cluster-scoped object: no namespace at all (an explicit undefined would take the default).
  const meta = (objName: string, ns: string | null = namespace) => ({ name: objName, ...(ns !== null ? { namespace: ns } : {}), labels, ownerReferences: [ownerOf(rn)] });
  // As kube-apiserver stores it: a ServiceAccount subject has no apiGroup.
  const subjects = [{ kind: 'ServiceAccount', name, namespace }];
  const leaseName = nodeLeaseName(rn.metadata.name ?? node);
  const { clusterRole, role: sharedRole } = settings.recorder.rbac;
  return {
    serviceAccount: {
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: meta(name),
      ...(settings.recorder.imagePullSecrets.length > 0 ? { imagePullSecrets: settings.recorder.imagePullSecrets.map((s) => ({ name: s })) } : {}),
    },
    role: {
      apiVersion: `${RBAC_GROUP}/v1`,
      kind: 'Role',
      metadata: meta(name),
      rules: [
        { apiGroups: ['coordination.k8s.io'], resources: ['leases'], resourceNames: [leaseName], verbs: ['get', 'update', 'patch', 'delete'] },
        { apiGroups: [''], resources: ['secrets'], resourceNames: [nodeCredentialsSecretName(rn.metadata.name ?? node)], verbs: ['get', 'list', 'watch'] },
      ],
    },
    roleBinding: { apiVersion: `${RBAC_GROUP}/v1`, kind: 'RoleBinding', metadata: meta(name), roleRef: { apiGroup: RBAC_GROUP, kind: 'Role', name }, subjects },
    sharedRoleBinding: { apiVersion: `${RBAC_GROUP}/v1`, kind: 'RoleBinding', metadata: meta(`${name}-shared`), roleRef: { apiGroup: RBAC_GROUP, kind: 'Role', name: sharedRole }, subjects },
    clusterRoleBinding: {
      apiVersion: `${RBAC_GROUP}/v1`,
      kind: 'ClusterRoleBinding',
      metadata: meta(clusterRoleBindingName(clusterRole, node), null),
      roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name: clusterRole },
      subjects,
    },
    lease: {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: meta(leaseName),
      spec: { holderIdentity: node, leaseDurationSeconds: NODE_LEASE_DURATION_SECONDS },
    },
  };
}
