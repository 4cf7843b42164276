// RecorderNode + settings → the node's own identity (kubernetes.md §18 "Least privilege"): a ServiceAccount for its
// recorder Pod, a Role that lets it write its own heartbeat Lease and read its own camera credentials Secret and nothing
// else, the bindings to that Role and to the chart's shared recorder rules (read-only but for Camera status), and the
// heartbeat Lease itself, made empty so that the recorder never needs to create Leases. The chart's recorder
// ClusterRole is granted through one ClusterRoleBinding of the chart whose subjects the operator keeps (one per node),
// so the operator may update that binding alone and no other of the cluster.
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
  lease: Lease;
}

/** The node's ServiceAccount (the same name as its Pod and Service). */
export function recorderServiceAccountName(rn: RecorderNode): string {
  return recorderName(nodeNameOf(rn));
}

/** The chart's ClusterRoleBinding of the recorder ClusterRole: the same name as that ClusterRole (unique per release). */
export function recorderClusterBindingName(settings: Settings): string {
  return settings.recorder.rbac.clusterRole;
}

type Subject = NonNullable<Binding['subjects']>[number];

/** A node's ServiceAccount as a binding subject, as the API server stores it (a ServiceAccount's apiGroup defaults to ''). */
function accountSubject(name: string, namespace: string): Subject {
  // As kube-apiserver stores it: a ServiceAccount subject has no apiGroup.
  return { kind: 'ServiceAccount', name, namespace };
}

/**
 * The subjects of the recorder ClusterRoleBinding: every RecorderNode's ServiceAccount (not one being deleted), sorted
 * by name so that the same nodes give the same list.
 */
export function recorderClusterBindingSubjects(nodes: readonly RecorderNode[], namespace: string): Subject[] {
  return nodes.filter((rn) => !rn.metadata.deletionTimestamp).map((rn) => recorderServiceAccountName(rn)).sort().map((name) => accountSubject(name, namespace));
}

export function desiredRecorderIdentity(rn: RecorderNode, settings: Settings, namespace: string): RecorderIdentity {
  const node = nodeNameOf(rn);
  const name = recorderServiceAccountName(rn);
  const labels = recorderLabels(node);
  const meta = (objName: string) => ({ name: objName, namespace, labels, ownerReferences: [ownerOf(rn)] });
  const subjects = [accountSubject(name, namespace)];
  const leaseName = nodeLeaseName(rn.metadata.name ?? node);
  const sharedRole = settings.recorder.rbac.role;
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
    lease: {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: meta(leaseName),
      spec: { holderIdentity: node, leaseDurationSeconds: NODE_LEASE_DURATION_SECONDS },
    },
  };
}
