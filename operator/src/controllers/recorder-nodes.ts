// Kubernetes Node → RecorderNode: every eligible Node (--node-selector) gets a RecorderNode with member: true, owned by
// the release's ClusterRole when the settings name it (helm uninstall then removes the RecorderNodes with the release).
// A RecorderNode is never deleted here: its node's archive and name outlive the Node object (spec "Restoring a node").
import { API_VERSION, Labels, RECORDER_NODE_KIND, type RecorderNode } from '@vigil/crds';
import { Resources } from '@vigil/kube';
import type { ReconcileResult } from '../runtime/controller.js';
import { createCached, type ControllerContext } from './context.js';
import { MANAGED_BY } from '../desired/names.js';
import { adopt, clusterOwner } from './release-owner.js';

export function reconcileRecorderNodeFor(ctx: ControllerContext) {
  return async (nodeName: string, signal: AbortSignal): Promise<ReconcileResult | void> => {
    const existing = ctx.caches.recorderNodes.get(nodeName);
    const owner = await clusterOwner(ctx, signal);
    if (existing) {
      // Made by an older operator or by /cluster/add-learner: it belongs to the release all the same.
      if (owner && !existing.metadata.deletionTimestamp) {
        const adopted = await adopt(ctx, Resources.recorderNodes, existing, owner, signal);
        if (adopted) ctx.caches.recorderNodes.upsert(adopted as RecorderNode);
      }
      return;
    }
    const node = ctx.caches.nodes.get(nodeName);
    if (!node || node.metadata.deletionTimestamp) return;
    if (!ctx.nodeEligible(node.metadata.labels ?? {})) return;
    if (ctx.settings.ownerClusterRole !== undefined && !owner) {
      // Being uninstalled (or not installed yet): a RecorderNode made now would belong to nothing and stay forever.
      ctx.log.warn({ node: nodeName, clusterRole: ctx.settings.ownerClusterRole }, 'the owner ClusterRole does not exist; no RecorderNode is made');
      return { requeueAfterMs: 10_000 };
    }
    const rn: RecorderNode = {
      apiVersion: API_VERSION,
      kind: RECORDER_NODE_KIND,
      metadata: { name: nodeName, labels: { [Labels.name]: 'vigil', [Labels.managedBy]: MANAGED_BY }, ...(owner ? { ownerReferences: [owner] } : {}) },
      spec: { nodeName, member: true },
    };
    const created = await createCached(ctx, Resources.recorderNodes, ctx.caches.recorderNodes, rn, signal);
    if (created) ctx.events.normal(created, 'MemberAdded', `node ${nodeName} joined as a member`);
  };
}
