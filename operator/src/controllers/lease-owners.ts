// The Leases of Vigil (the operator's vigil-operator and every recorder's vigil-node-<node>) belong to the release's
// recorder ConfigMap, so that helm uninstall removes them with everything else; their writers create them without owners.
import { nodeOfLease, OPERATOR_LEASE_NAME } from '@vigil/crds';
import { Resources, type Lease } from '@vigil/kube';
import type { ReconcileResult } from '../runtime/controller.js';
import { nsKey, type ControllerContext } from './context.js';
import { adopt, namespacedOwner } from './release-owner.js';

export function isVigilLease(name: string): boolean {
  return name === OPERATOR_LEASE_NAME || nodeOfLease(name) !== undefined;
}

export function reconcileLeaseOwnerFor(ctx: ControllerContext) {
  return async (name: string, signal: AbortSignal): Promise<ReconcileResult | void> => {
    if (!isVigilLease(name)) return;
    const lease = ctx.caches.leases.get(nsKey(ctx, name));
    const owner = namespacedOwner(ctx);
    if (!lease || lease.metadata.deletionTimestamp || !owner) return;
    const adopted = await adopt(ctx, Resources.leases, lease, owner, signal);
    if (adopted) ctx.caches.leases.upsert(adopted as Lease);
  };
}
