// Each RecorderNode's identity (desired/recorder-identity.ts): its ServiceAccount, its Role for its own heartbeat Lease,
// the bindings to that Role and to the chart's recorder rules (its subject in the shared ClusterRoleBinding), and the heartbeat Lease (created empty, never changed
// after: it is the recorder's). Created when missing, put right when changed; the RecorderNode owns them all, so
// deleting it removes them.
import { nodeNameOf, type RecorderNode } from '@vigil/crds';
import { isDerivedFrom, Resources, type Binding, type Informer, type KubeObject, type ResourceType } from '@vigil/kube';
import { desiredRecorderIdentity } from '../desired/recorder-identity.js';
import type { ReconcileResult } from '../runtime/controller.js';
import { createCached, nsKey, type ControllerContext } from './context.js';
import { inRecorderClusterBinding, recorderClusterBindingKeeper } from './recorder-cluster-binding.js';

/** What of an object the operator keeps as it wants it (labels, owner, and the kind's own content). */
function managedPart(obj: KubeObject & { rules?: unknown; subjects?: unknown; roleRef?: unknown; imagePullSecrets?: unknown }): unknown {
  return [obj.metadata.labels, obj.metadata.ownerReferences?.map((o) => o.uid), obj.rules, obj.subjects, obj.roleRef, obj.imagePullSecrets];
}

async function ensure<T extends KubeObject>(ctx: ControllerContext, type: ResourceType, cache: Informer<T>, want: T, signal: AbortSignal): Promise<void> {
  const key = want.metadata.namespace ? nsKey(ctx, want.metadata.name ?? '') : (want.metadata.name ?? '');
  const have = cache.get(key);
  if (!have || have.metadata.deletionTimestamp) {
    if (!have) await createCached(ctx, type, cache, want, signal);
    return;
  }
  if (isDerivedFrom(managedPart(want), managedPart(have))) return;
  const haveRef = (have as unknown as Binding).roleRef;
  const wantRef = (want as unknown as Binding).roleRef;
  if (haveRef !== undefined && !isDerivedFrom(wantRef, haveRef)) {
    // roleRef cannot change: the binding is made again.
    await ctx.client.delete(type, want.metadata.namespace, want.metadata.name ?? '', { signal, uid: have.metadata.uid });
    await createCached(ctx, type, cache, want, signal);
    return;
  }
  const next = { ...have, ...want, metadata: { ...have.metadata, labels: want.metadata.labels, ownerReferences: want.metadata.ownerReferences } };
  cache.upsert(await ctx.client.replace(type, next, { signal }));
}

/** Whether every part of the node's identity exists: only then may its recorder Pod start (it needs them from its first request). */
export function identityComplete(ctx: ControllerContext, rn: RecorderNode): boolean {
  const want = desiredRecorderIdentity(rn, ctx.settings, ctx.namespace);
  const { caches } = ctx;
  const here = (name: string | undefined) => nsKey(ctx, name ?? '');
  return caches.serviceAccounts.get(here(want.serviceAccount.metadata.name)) !== undefined
    && caches.roles.get(here(want.role.metadata.name)) !== undefined
    && caches.roleBindings.get(here(want.roleBinding.metadata.name)) !== undefined
    && caches.roleBindings.get(here(want.sharedRoleBinding.metadata.name)) !== undefined
    && inRecorderClusterBinding(ctx, want.serviceAccount.metadata.name ?? '')
    && caches.leases.get(here(want.lease.metadata.name)) !== undefined;
}

export function reconcileRecorderIdentityFor(ctx: ControllerContext) {
  const keepClusterBinding = recorderClusterBindingKeeper(ctx);
  return async (name: string, signal: AbortSignal): Promise<ReconcileResult | void> => {
    // Every node's pass (a node gone too) keeps the shared binding's subjects; without the binding, look again later.
    const bound = await keepClusterBinding(signal);
    const rn = ctx.caches.recorderNodes.get(name);
    // Gone or going: the owner references take its identity with it.
    if (!rn || rn.metadata.deletionTimestamp) return;
    const want = desiredRecorderIdentity(rn, ctx.settings, ctx.namespace);
    const { caches } = ctx;
    await ensure(ctx, Resources.serviceAccounts, caches.serviceAccounts, want.serviceAccount, signal);
    await ensure(ctx, Resources.roles, caches.roles, want.role, signal);
    await ensure(ctx, Resources.roleBindings, caches.roleBindings, want.roleBinding, signal);
    await ensure(ctx, Resources.roleBindings, caches.roleBindings, want.sharedRoleBinding, signal);
    // The heartbeat Lease is the recorder's once it exists: only made when missing (also after /cluster/leave deleted it).
    if (!caches.leases.get(nsKey(ctx, want.lease.metadata.name ?? ''))) {
      if (await createCached(ctx, Resources.leases, caches.leases, want.lease, signal)) ctx.log.info({ node: nodeNameOf(rn), lease: want.lease.metadata.name }, 'heartbeat Lease created for the node\'s recorder');
    }
    if (!bound) return { requeueAfterMs: 30_000 };
  };
}
