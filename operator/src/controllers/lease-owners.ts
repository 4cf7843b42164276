// The operator's Lease (vigil-operator), and a recorder's vigil-node-<node> that has no owner yet (made by an older
// recorder; the operator now makes each node's Lease owned by its RecorderNode), belong to the release's recorder
// ConfigMap, so that helm uninstall removes them with everything else.
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
    // A node's Lease owned by its RecorderNode goes with it; a second owner would keep it after the node is removed.
    if (name !== OPERATOR_LEASE_NAME && (lease.metadata.ownerReferences?.length ?? 0) > 0) return;
    const adopted = await adopt(ctx, Resources.leases, lease, owner, signal);
    if (adopted) ctx.caches.leases.upsert(adopted as Lease);
  };
}
