// Kubernetes Node → RecorderNode: every eligible Node (--node-selector) gets a RecorderNode with member: true.
// A RecorderNode is never deleted here: its node's archive and name outlive the Node object (spec "Restoring a node").
import { API_VERSION, Labels, RECORDER_NODE_KIND, type RecorderNode } from '@vigil/crds';
import { Resources } from '@vigil/kube';
import type { ReconcileResult } from '../runtime/controller.js';
import { createCached, type ControllerContext } from './context.js';
import { MANAGED_BY } from '../desired/names.js';

export function reconcileRecorderNodeFor(ctx: ControllerContext) {
  return async (nodeName: string, signal: AbortSignal): Promise<ReconcileResult | void> => {
    const node = ctx.caches.nodes.get(nodeName);
    if (!node || node.metadata.deletionTimestamp) return;
    if (!ctx.nodeEligible(node.metadata.labels ?? {})) return;
    if (ctx.caches.recorderNodes.get(nodeName)) return;
    const rn: RecorderNode = {
      apiVersion: API_VERSION,
      kind: RECORDER_NODE_KIND,
      metadata: { name: nodeName, labels: { [Labels.name]: 'vigil', [Labels.managedBy]: MANAGED_BY } },
      spec: { nodeName, member: true },
    };
    const created = await createCached(ctx, Resources.recorderNodes, ctx.caches.recorderNodes, rn, signal);
    if (created) ctx.events.normal(created, 'MemberAdded', `node ${nodeName} joined as a member`);
  };
}
