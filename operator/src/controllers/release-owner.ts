// The objects of the release that own what the operator makes: the recorder ConfigMap (namespaced objects) and, when the
// settings name it, the release's ClusterRole (RecorderNodes). Read from the caches or the API, never guessed.
import type { OwnerReference } from '@vigil/crds';
import { Resources, type KubeObject } from '@vigil/kube';
import { releaseOwner } from '../desired/owner.js';
import { nsKey, type ControllerContext } from './context.js';

/** The recorder ConfigMap as an owner, or undefined while it does not exist (nothing is made without it). */
export function namespacedOwner(ctx: ControllerContext): OwnerReference | undefined {
  const cm = ctx.caches.configMaps.get(nsKey(ctx, ctx.settings.recorder.configMap));
  if (!cm?.metadata.uid || cm.metadata.deletionTimestamp) return undefined;
  return releaseOwner({ ...cm, apiVersion: 'v1', kind: 'ConfigMap' });
}

/** The ClusterRole the settings name as the RecorderNodes' owner; undefined when none is named or it does not exist. */
export async function clusterOwner(ctx: ControllerContext, signal: AbortSignal): Promise<OwnerReference | undefined> {
  const name = ctx.settings.ownerClusterRole;
  if (name === undefined) return undefined;
  const role = await ctx.client.get<KubeObject>(Resources.clusterRoles, undefined, name, { signal });
  if (!role?.metadata.uid || role.metadata.deletionTimestamp) return undefined;
  return releaseOwner({ ...role, apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole' });
}

/**
 * Adds `owner` to the object's owner references (a merge patch of metadata only) unless it carries it already; other
 * owners are kept, an older reference to the same owner (another uid: the owner was re-created) is replaced.
 */
export async function adopt(ctx: ControllerContext, type: (typeof Resources)[keyof typeof Resources], obj: KubeObject, owner: OwnerReference, signal: AbortSignal): Promise<KubeObject | undefined> {
  const refs = obj.metadata.ownerReferences ?? [];
  if (refs.some((r) => r.uid === owner.uid)) return undefined;
  const kept = refs.filter((r) => !(r.kind === owner.kind && r.name === owner.name));
  // Only one reference may be the controller: an owner already controlling the object stays so.
  const mine = kept.some((r) => r.controller) ? { ...owner, controller: false } : owner;
  const patch = { metadata: { resourceVersion: obj.metadata.resourceVersion, ownerReferences: [...kept, mine] } };
  return ctx.client.mergePatch(type, obj.metadata.namespace, obj.metadata.name ?? '', patch, { signal });
}
