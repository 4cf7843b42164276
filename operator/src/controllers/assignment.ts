// Camera assignment over the whole cluster (one key: the plan needs every camera and node at once): plans from the
// caches (the RecorderNodes, and the selected Nodes still waiting for theirs, which count towards quorum), applies
// each changed Camera status once (server-side apply of the operator's fields; moves before phases, in the operator's
// shared write slots), records Events, moves and failover seconds, and keeps the quorum, members and cameras-by-phase
// metrics. A status that gives a node a camera is written only after that node's credentials Secret has the camera's
// credentials (camera-credentials.ts).
import { CAMERA_PHASES, type Camera, type CameraPhase, type RecorderNode } from '@vigil/crds';
import { awaitedMembers, conflictBackoffMs, Resources, keyOf, nodeViews, type NodeView } from '@vigil/kube';
import { isUrgent, passWrites, planAssignment, type CameraDecision } from '../desired/assignment.js';
import { recordingNodes } from '../desired/camera-credentials.js';
import { desiredCameraStatus, nextPhaseChangeIn, ownedCameraStatus, sameStatus, type OwnedCameraStatus } from '../desired/camera-status.js';
import { DEFAULT_PLAN_OPTIONS, isSettled } from '../desired/placement-rules.js';
import { advertiseUrl } from '../desired/urls.js';
import type { ReconcileResult } from '../runtime/controller.js';
import type { NodeCredentials, PlannedRecorders } from './camera-credentials.js';
import { applyStatusInBatch, nsKey, type ControllerContext } from './context.js';

export const ASSIGNMENT_KEY = 'cluster';

/**
 * Routine writes (a phase, a condition's wording) one pass makes, after all its urgent ones (a camera given a node,
 * taken off one, moved); the rest are left to the next pass, planned at once (passWrites).
 */
const ROUTINE_PER_PASS = 128;

/** The nodes each status write gives a camera with credentials (the cameras that must be in those nodes' Secrets first). */
function newRecorders(writes: Array<{ cam: Camera; owned: OwnedCameraStatus }>): PlannedRecorders {
  const planned = new Map<string, string[]>();
  for (const { cam, owned } of writes) {
    if (cam.spec.credentialsSecretRef === undefined) continue;
    const now = recordingNodes(cam);
    const added = recordingNodes({ ...cam, status: owned }).filter((n) => !now.includes(n));
    if (added.length > 0) planned.set(keyOf(cam), added);
  }
  return planned;
}

export function reconcileAssignmentFor(ctx: ControllerContext, credentials: NodeCredentials) {
  let lastQuorum: boolean | undefined;
  /** What the last pass planned from, and until when its result holds by time alone. */
  let last: { signature: string; validUntil: number } | undefined;

  function quorumEvents(ok: boolean, voters: number, text: string, rns: RecorderNode[]): void {
    // No members yet (a cluster being set up): nothing was lost.
    if (voters === 0 || lastQuorum === ok) return;
    const first = lastQuorum === undefined;
    lastQuorum = ok;
    if (first && ok) return;
    for (const rn of rns.filter((r) => r.spec.member !== false)) {
      if (ok) ctx.events.normal(rn, 'QuorumRegained', `quorum regained: ${text}; cameras are assigned and moved again`);
      else ctx.events.warning(rn, 'QuorumLost', `quorum lost: ${text}; no camera is assigned or moved, nodes keep what they record`);
    }
  }

  function moveEvents(cam: Camera, d: CameraDecision, before: Camera, nodes: Map<string, NodeView>, now: number): void {
    switch (d.move) {
      case 'assigned':
        ctx.events.normal(cam, 'Assigned', `assigned to node ${d.node}`);
        break;
      case 'failover': {
        const hb = d.from ? nodes.get(d.from)?.lastHeartbeat : undefined;
        const silent = hb !== undefined ? `${((now - hb) / 1000).toFixed(1)} s` : 'ever';
        ctx.events.warning(cam, 'Failover', `moved from ${d.from} to ${d.node}: ${d.from} has been silent for ${silent}`);
        if (hb !== undefined) ctx.metrics.failoverSeconds.observe((now - hb) / 1000);
        break;
      }
      case 'planned':
        ctx.events.normal(cam, 'Handover', `moving from ${d.from} to ${d.node}: ${d.from} records until ${d.node} reports Recording`);
        break;
      case 'rebalance':
        ctx.events.normal(cam, 'Rebalance', `moving from ${d.from} to ${d.node} to even out the load: ${d.from} records until ${d.node} reports Recording`);
        break;
      case 'handover-complete':
        ctx.events.normal(cam, 'HandoverComplete', `${d.node} records; ${d.from} stops`);
        break;
      case 'unassigned':
        ctx.events.warning(cam, 'Unassigned', `taken off ${d.from}: ${d.message ?? d.reason}`);
        break;
      default:
        break;
    }
    if (d.move !== 'none') ctx.metrics.moves.inc({ kind: d.move });
    const prevAssigned = before.status?.conditions?.find((c) => c.type === 'Assigned');
    if (!d.node && d.reason && d.move === 'none' && (prevAssigned?.reason !== d.reason || prevAssigned.status !== 'False')) {
      ctx.events.warning(cam, d.reason, d.message ?? d.reason);
    }
    if (cam.status?.phase === 'Failed' && before.status?.phase !== 'Failed') {
      ctx.events.warning(cam, 'Failed', `node ${cam.status.node} has reported it cannot record the camera for more than 60 s`);
    }
  }

  /** Passes in a row that met a conflict (each waits longer, with jitter, before planning again). */
  let conflictedPasses = 0;

  return async (_key: string, signal: AbortSignal): Promise<ReconcileResult | void> => {
    const now = ctx.clock.now();
    const rns = ctx.caches.recorderNodes.list();
    const nodes = [
      ...nodeViews(rns, (n) => ctx.caches.leases.get(nsKey(ctx, n)), (n) => ctx.caches.nodes.get(n), now, ctx.nodeSilenceMs, (n) => advertiseUrl(n, ctx.namespace, ctx.settings)),
      ...awaitedMembers(ctx.caches.nodes.list(), ctx.nodeEligible, rns),
    ];
    const byName = new Map(nodes.map((n) => [n.name, n]));
    const cameras = ctx.caches.cameras.list().filter((c) => !c.metadata.deletionTimestamp);
    const options = { ...DEFAULT_PLAN_OPTIONS, now, settleMs: ctx.nodeSettleMs };
    // The tick asks every second; plan again only when an input changed or something time-based is due.
    const signature = JSON.stringify([nodes.map((n) => [n.name, n.member, n.online, n.url, n.labels, n.onlineSince, n.awaited]), cameras.map((c) => c.metadata.resourceVersion)]);
    if (last && last.signature === signature && now < last.validUntil) return;
    const plan = planAssignment(cameras, nodes, options);

    ctx.metrics.quorum.set(plan.quorum.ok ? 1 : 0);
    ctx.metrics.members.set({ state: 'online' }, plan.quorum.onlineVoters);
    ctx.metrics.members.set({ state: 'offline' }, plan.quorum.voters - plan.quorum.onlineVoters);
    quorumEvents(plan.quorum.ok, plan.quorum.voters, `${plan.quorum.onlineVoters} of ${plan.quorum.voters} members online`, rns);

    const writes: Array<{ cam: Camera; owned: OwnedCameraStatus; decision: CameraDecision }> = [];
    let requeueAfterMs: number | undefined;
    const phases = new Map<CameraPhase, number>(CAMERA_PHASES.map((p) => [p, 0]));
    for (const cam of cameras) {
      const decision = plan.decisions.get(keyOf(cam))!;
      const status = desiredCameraStatus(cam, decision, byName, now);
      phases.set(status.phase ?? 'Pending', (phases.get(status.phase ?? 'Pending') ?? 0) + 1);
      const wait = nextPhaseChangeIn({ ...cam.status, ...status }, now);
      if (wait !== undefined) requeueAfterMs = Math.min(requeueAfterMs ?? wait, wait);
      if (!sameStatus(ownedCameraStatus(cam.status), status)) writes.push({ cam, owned: status, decision });
    }
    // A member becoming settled may let rebalancing move cameras to it: plan again then.
    for (const n of nodes) {
      if (!n.online || n.onlineSince === undefined || isSettled(n, now, options.settleMs)) continue;
      const wait = n.onlineSince + options.settleMs - now + 10;
      requeueAfterMs = Math.min(requeueAfterMs ?? wait, wait);
    }
    for (const [phase, n] of phases) ctx.metrics.cameras.set({ phase }, n);
    ctx.metrics.exportClusterState();

    let conflicts = 0;
    let held = 0;
    const { writes: thisPass, deferred } = passWrites(writes, ROUTINE_PER_PASS);
    const planned = newRecorders(thisPass);
    await credentials.whileAssigning(planned, signal, (unwritten) => ctx.cameraStatusWrites.forEach(thisPass, (w) => isUrgent(w.decision), async ({ cam, owned, decision }) => {
      if (signal.aborted) return;
      // The node's Secret could not get the camera's credentials: not given to it yet (planned again with backoff).
      if ((planned.get(keyOf(cam)) ?? []).some((n) => unwritten.has(n))) {
        held++;
        return;
      }
      const written = await applyStatusInBatch(ctx, Resources.cameras, ctx.caches.cameras, cam, owned, signal);
      if (written === 'conflict') conflicts++;
      else if (written !== 'gone') moveEvents(written, decision, cam, byName, now);
    }));
    if (held > 0) throw new Error(`${held} camera move(s) wait for their new node's camera credentials Secret`);
    last = conflicts === 0 && writes.length === 0 ? { signature, validUntil: now + (requeueAfterMs ?? Infinity) } : undefined;
    if (conflicts > 0) {
      // Applying owned fields does not conflict with the recorders; a 409 means something unexpected wrote: back off
      // (exponentially, with jitter) and plan again from the fresh cache.
      conflictedPasses++;
      const backoffMs = 100 + conflictBackoffMs(conflictedPasses, 200, 10_000, Math.random);
      ctx.log.debug({ conflicts, backoffMs }, 'camera status conflicts; planning again');
      return { requeueAfterMs: backoffMs };
    }
    conflictedPasses = 0;
    // Routine writes left for later: plan again at once (new cameras first, then what was left).
    if (deferred > 0) return { requeueAfterMs: 0 };
    return requeueAfterMs !== undefined ? { requeueAfterMs } : undefined;
  };
}
