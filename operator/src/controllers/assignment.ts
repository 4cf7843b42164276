// Camera assignment over the whole cluster (one key: the plan needs every camera and node at once): plans from the
// caches, writes each changed Camera status once (read-modify-write; a 409 requeues the pass), records Events,
// moves and failover seconds, and keeps the quorum and cameras-by-phase metrics.
import { CAMERA_PHASES, type Camera, type CameraPhase, type RecorderNode } from '@vigil/crds';
import { isConflict, isNotFound, Resources, keyOf, nodeViews, type NodeView } from '@vigil/kube';
import { planAssignment, type CameraDecision } from '../desired/assignment.js';
import { desiredCameraStatus, nextPhaseChangeIn, sameStatus } from '../desired/camera-status.js';
import { advertiseUrl } from '../desired/urls.js';
import type { ReconcileResult } from '../runtime/controller.js';
import { nsKey, type ControllerContext } from './context.js';

export const ASSIGNMENT_KEY = 'cluster';

/** Status writes in flight at once. */
const WRITE_CONCURRENCY = 8;

async function forEachLimited<T>(items: T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const run = async () => {
    while (next < items.length) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, run));
}

export function reconcileAssignmentFor(ctx: ControllerContext) {
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

  return async (_key: string, signal: AbortSignal): Promise<ReconcileResult | void> => {
    const now = ctx.clock.now();
    const rns = ctx.caches.recorderNodes.list();
    const nodes = nodeViews(rns, (n) => ctx.caches.leases.get(nsKey(ctx, n)), (n) => ctx.caches.nodes.get(n), now, ctx.nodeSilenceMs, (n) => advertiseUrl(n, ctx.namespace, ctx.settings));
    const byName = new Map(nodes.map((n) => [n.name, n]));
    const cameras = ctx.caches.cameras.list().filter((c) => !c.metadata.deletionTimestamp);
    // The tick asks every second; plan again only when an input changed or a time-based phase is due.
    const signature = JSON.stringify([nodes.map((n) => [n.name, n.member, n.online, n.url, n.labels]), cameras.map((c) => c.metadata.resourceVersion)]);
    if (last && last.signature === signature && now < last.validUntil) return;
    const plan = planAssignment(cameras, nodes);

    ctx.metrics.quorum.set(plan.quorum.ok ? 1 : 0);
    ctx.metrics.members.set({ state: 'online' }, plan.quorum.onlineVoters);
    ctx.metrics.members.set({ state: 'offline' }, plan.quorum.voters - plan.quorum.onlineVoters);
    quorumEvents(plan.quorum.ok, plan.quorum.voters, `${plan.quorum.onlineVoters} of ${plan.quorum.voters} members online`, rns);

    const writes: Array<{ cam: Camera; next: Camera; decision: CameraDecision }> = [];
    let requeueAfterMs: number | undefined;
    const phases = new Map<CameraPhase, number>(CAMERA_PHASES.map((p) => [p, 0]));
    for (const cam of cameras) {
      const decision = plan.decisions.get(keyOf(cam))!;
      const status = desiredCameraStatus(cam, decision, byName, now);
      phases.set(status.phase ?? 'Pending', (phases.get(status.phase ?? 'Pending') ?? 0) + 1);
      const wait = nextPhaseChangeIn(status, now);
      if (wait !== undefined) requeueAfterMs = Math.min(requeueAfterMs ?? wait, wait);
      if (!sameStatus(cam.status, status)) writes.push({ cam, next: { ...cam, status }, decision });
    }
    for (const [phase, n] of phases) ctx.metrics.cameras.set({ phase }, n);
    ctx.metrics.exportClusterState();

    let conflicts = 0;
    await forEachLimited(writes, WRITE_CONCURRENCY, async ({ cam, next, decision }) => {
      if (signal.aborted) return;
      try {
        const written = await ctx.client.replaceStatus<Camera>(Resources.cameras, next, { signal });
        ctx.caches.cameras.upsert(written);
        moveEvents(written, decision, cam, byName, now);
      } catch (err) {
        if (isNotFound(err)) return;
        if (isConflict(err)) {
          conflicts++;
          return;
        }
        throw err;
      }
    });
    last = conflicts === 0 && writes.length === 0 ? { signature, validUntil: now + (requeueAfterMs ?? Infinity) } : undefined;
    if (conflicts > 0) {
      // Someone (a recorder reporting Recording) wrote first: re-read and plan again soon.
      ctx.log.debug({ conflicts }, 'camera status conflicts; planning again');
      return { requeueAfterMs: 100 };
    }
    return requeueAfterMs !== undefined ? { requeueAfterMs } : undefined;
  };
}
