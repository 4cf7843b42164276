// The owner references of what the operator makes: per-node Pods, Services, Ingresses and the credentials copy belong to
// the release's recorder ConfigMap, RecorderNodes to the release's ClusterRole, a node's identity to its RecorderNode;
// deleting the release (helm uninstall) therefore garbage-collects them all.
import { API_VERSION, RECORDER_NODE_KIND, type OwnerReference, type RecorderNode } from '@vigil/crds';
import type { KubeObject } from '@vigil/kube';

/**
 * A reference to an object of the release. Not blockOwnerDeletion: nothing waits for the dependents (and setting it
 * would need update on the owner's finalizers).
 */
export function releaseOwner(owner: KubeObject & { apiVersion: string; kind: string }): OwnerReference {
  return { apiVersion: owner.apiVersion, kind: owner.kind, name: owner.metadata.name ?? '', uid: owner.metadata.uid ?? '', controller: true };
}

/** `obj` carries exactly this owner reference (same uid). */
export function isOwnedBy(obj: KubeObject | undefined, owner: OwnerReference): boolean {
  return obj?.metadata.ownerReferences?.some((o) => o.uid === owner.uid && o.kind === owner.kind && o.name === owner.name) ?? false;
}

/**
 * The owner reference of a node's own identity (its ServiceAccount, Role, bindings and heartbeat Lease): its RecorderNode,
 * so that removing a node removes what let its recorder act, and helm uninstall (through the RecorderNodes' owner, the
 * release's ClusterRole) removes them with the rest.
 */
export function ownerOf(rn: RecorderNode): OwnerReference {
  return { apiVersion: API_VERSION, kind: RECORDER_NODE_KIND, name: rn.metadata.name ?? '', uid: rn.metadata.uid ?? '', controller: true, blockOwnerDeletion: true };
}
