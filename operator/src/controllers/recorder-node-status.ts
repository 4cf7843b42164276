// RecorderNode status: online (heartbeat Lease), lastHeartbeat on transitions, what the recorder reports on its Lease,
// the Online/Ready/Rolled conditions and observedGeneration — applied once per pass, only when they differ (server-side
// apply as `vigil-operator`; a camera count alone at most every 10 s per node); Events when a node goes silent, comes
// back, changes membership, or its certificate nears its end (CertificateExpiring), ends (CertificateExpired) or is
// renewed after that (CertificateRenewed).
import { nodeLeaseName, nodeNameOf, RecorderNodeCondition, type RecorderNode } from '@vigil/crds';
import { isNotFound, Resources } from '@vigil/kube';
import { sameStatus } from '../desired/camera-status.js';
import { recorderName } from '../desired/names.js';
import { cameraCountWait, desiredRecorderNodeStatus, ownedNodeStatus } from '../desired/recorder-node-status.js';
import type { ReconcileResult } from '../runtime/controller.js';
import { applyStatusCached, nsKey, type ControllerContext } from './context.js';
import type { PodTemplates } from './pod-templates.js';

export function reconcileRecorderNodeStatusFor(ctx: ControllerContext, templates: PodTemplates) {
  /** The membership each node had when last seen, to tell a change (no Event for the first sight). */
  const lastMember = new Map<string, boolean>();
  /** When this replica last wrote each node's status (a camera count alone waits for CAMERA_COUNT_INTERVAL_MS). */
  const lastWritten = new Map<string, number>();
  return async (name: string, signal: AbortSignal): Promise<ReconcileResult | void> => {
    const rn = ctx.caches.recorderNodes.get(name);
    if (!rn || rn.metadata.deletionTimestamp) {
      lastMember.delete(name);
      lastWritten.delete(name);
      return;
    }
    const member = rn.spec.member !== false;
    const before = lastMember.get(name);
    lastMember.set(name, member);
    if (before !== undefined && before !== member) {
      ctx.events.normal(rn, 'MembershipChanged', member ? `node ${name} is a member again: it votes and takes cameras` : `node ${name} is no longer a member: its cameras move away (make-before-break)`);
    }
    const now = ctx.clock.now();
    const lease = ctx.caches.leases.get(nsKey(ctx, nodeLeaseName(name)));
    const pod = ctx.caches.pods.get(nsKey(ctx, recorderName(nodeNameOf(rn))));
    const status = desiredRecorderNodeStatus({ rn, lease, pod, desiredHash: templates.hashFor(rn), now, silenceMs: ctx.nodeSilenceMs });
    const owned = ownedNodeStatus(rn.status);
    if (sameStatus(owned, status)) return;
    const wait = cameraCountWait(owned, status, lastWritten.get(name), now);
    if (wait > 0) return { requeueAfterMs: wait };
    const wasOnline = rn.status?.online;
    const certificateBefore = rn.status?.conditions?.find((c) => c.type === RecorderNodeCondition.CertificateValid);
    let written: RecorderNode;
    try {
      written = await applyStatusCached(ctx, Resources.recorderNodes, ctx.caches.recorderNodes, rn, status, signal);
      lastWritten.set(name, now);
    } catch (err) {
      if (isNotFound(err)) return;
      throw err;
    }
    if (wasOnline === true && status.online === false) ctx.events.warning(written, 'NodeSilent', `node ${name}: no heartbeat for more than ${ctx.nodeSilenceMs / 1000} s; its cameras move to other nodes`);
    if (wasOnline === false && status.online === true) ctx.events.normal(written, 'NodeOnline', `node ${name}: heartbeat renewed again`);
    const certificate = status.conditions?.find((c) => c.type === RecorderNodeCondition.CertificateValid);
    if (certificate !== undefined && certificate.reason !== certificateBefore?.reason) {
      if (certificate.status === 'False') ctx.events.warning(written, certificate.reason ?? 'CertificateExpiring', `node ${name}: ${certificate.message ?? ''}`);
      else if (certificateBefore !== undefined) ctx.events.normal(written, 'CertificateRenewed', `node ${name}: ${certificate.message ?? ''}`);
    }
  };
}
