// The owner references of what the operator makes: namespaced objects belong to the release's recorder ConfigMap,
// RecorderNodes to the release's ClusterRole, so deleting the release (helm uninstall) garbage-collects them all.
import type { OwnerReference } from '@vigil/crds';
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
