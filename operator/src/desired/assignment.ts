// Cluster snapshot → where every camera records (kubernetes.md §4): least-loaded online member that satisfies the pins,
// settled members first; stable; nothing assigned or moved without quorum; an offline owner's cameras move at once; a
// planned move (owner online but no longer allowed) is make-before-break through `handoverFrom`; then rebalancing
// (rebalance.ts) evens the load out towards settled members, a few cameras at a time.
import { CAMERA_ID_PATTERN, CameraReason, type Camera } from '@vigil/crds';
import { keyOf, quorumOf, type NodeView, type Quorum } from '@vigil/kube';
import { canRecord, DEFAULT_PLAN_OPTIONS, isSettled, recordingReported, type PlanOptions } from './placement-rules.js';
import { rebalance } from './rebalance.js';

export type Move =
  /** Nothing changed. */
  | 'none'
  /** A camera without a node got one. */
  | 'assigned'
  /** Its node was not online: moved at once. */
  | 'failover'
  /** Its node is online but may no longer record it: make-before-break. */
  | 'planned'
  /** Its node is online and may keep it, but another settled member carries two or more fewer: make-before-break. */
  | 'rebalance'
  /** The new node of a planned move records: the old one may stop. */
  | 'handover-complete'
  /** It had a node and now has none (nobody may record it). */
  | 'unassigned';

export interface CameraDecision {
  key: string;
  node?: string;
  handoverFrom?: string;
  move: Move;
  /** The node it was on before this decision (for failover, planned and unassigned moves). */
  from?: string;
  /** Why it has no node (Assigned=False), when it has none. */
  reason?: string;
  message?: string;
}

export interface AssignmentPlan {
  quorum: Quorum;
  decisions: Map<string, CameraDecision>;
  /** Cameras per node after the plan (by status.node). */
  load: Map<string, number>;
}

function pinsText(cam: Camera): string {
  const parts: string[] = [];
  if (cam.spec.nodeName) parts.push(`nodeName ${cam.spec.nodeName}`);
  const sel = Object.entries(cam.spec.nodeSelector ?? {}).map(([k, v]) => `${k}=${v}`);
  if (sel.length > 0) parts.push(`nodeSelector ${sel.join(',')}`);
  return parts.length > 0 ? ` satisfying ${parts.join(' and ')}` : '';
}

export function planAssignment(cameras: Camera[], nodes: NodeView[], options: Partial<PlanOptions> = {}): AssignmentPlan {
  const opts = { ...DEFAULT_PLAN_OPTIONS, ...options };
  const byName = new Map(nodes.map((n) => [n.name, n]));
  const quorum = quorumOf(nodes);
  const load = new Map<string, number>(nodes.map((n) => [n.name, 0]));
  const decisions = new Map<string, CameraDecision>();
  const sorted = [...cameras].sort((a, b) => (keyOf(a) < keyOf(b) ? -1 : keyOf(a) > keyOf(b) ? 1 : 0));
  const toPlace: Array<{ cam: Camera; kind: 'assigned' | 'failover' | 'planned'; from?: string }> = [];

  // First every camera that stays where it is, so that the load the others are placed by is complete.
  for (const cam of sorted) {
    const key = keyOf(cam);
    const owner = cam.status?.node || undefined;
    const handoverFrom = cam.status?.handoverFrom || undefined;
    if (!CAMERA_ID_PATTERN.test(cam.metadata.name ?? '')) {
      decisions.set(key, { key, move: owner ? 'unassigned' : 'none', ...(owner ? { from: owner } : {}), reason: CameraReason.InvalidName, message: `"${cam.metadata.name}" is not a camera id (${CAMERA_ID_PATTERN.source})` });
      continue;
    }
    const node = owner ? byName.get(owner) : undefined;
    if (!quorum.ok) {
      // No quorum: nothing is assigned or moved; the nodes that remain keep what they record.
      const d: CameraDecision = { key, move: 'none' };
      if (owner) {
        d.node = owner;
        if (handoverFrom && !recordingReported(cam, owner)) d.handoverFrom = handoverFrom;
        else if (handoverFrom) d.move = 'handover-complete';
        load.set(owner, (load.get(owner) ?? 0) + 1);
      } else {
        d.reason = CameraReason.NoQuorum;
        d.message = `no quorum: ${quorum.onlineVoters} of ${quorum.voters} members online, more than half needed`;
      }
      if (d.move === 'handover-complete') d.from = handoverFrom;
      decisions.set(key, d);
      continue;
    }
    if (owner && node && node.online && canRecord(cam, node)) {
      const d: CameraDecision = { key, node: owner, move: 'none' };
      const from = handoverFrom ? byName.get(handoverFrom) : undefined;
      if (handoverFrom && recordingReported(cam, owner)) {
        d.move = 'handover-complete';
        d.from = handoverFrom;
      } else if (handoverFrom && from?.online) {
        d.handoverFrom = handoverFrom;
      }
      // (a handover source that went offline has nothing left to hand over)
      decisions.set(key, d);
      load.set(owner, (load.get(owner) ?? 0) + 1);
      continue;
    }
    if (!owner) toPlace.push({ cam, kind: 'assigned' });
    else if (node && node.online) toPlace.push({ cam, kind: 'planned', from: owner });
    else toPlace.push({ cam, kind: 'failover', from: owner });
  }

  for (const { cam, kind, from } of toPlace) {
    const key = keyOf(cam);
    // Settled members first (a node that just came back may be flapping); the others when no settled one may take it.
    const candidates = nodes.filter((n) => n.online && n.name !== from && canRecord(cam, n));
    const settled = candidates.filter((n) => isSettled(n, opts.now, opts.settleMs));
    let best: NodeView | undefined;
    for (const n of settled.length > 0 ? settled : candidates) {
      if (!best || (load.get(n.name) ?? 0) < (load.get(best.name) ?? 0)) best = n;
    }
    if (!best && kind === 'planned' && from) {
      // Make-before-break: with nowhere to hand over to, the camera stays where it records.
      const members = nodes.filter((n) => n.member);
      decisions.set(key, { key, node: from, move: 'none', message: `stays on ${from} until another online member${pinsText(cam)} can take it (${members.filter((n) => n.online).length} of ${members.length} members online)` });
      load.set(from, (load.get(from) ?? 0) + 1);
      continue;
    }
    if (!best) {
      const members = nodes.filter((n) => n.member);
      const message = members.length === 0
        ? 'no RecorderNode is a member'
        : `no online member${pinsText(cam)} may record it (${members.filter((n) => n.online).length} of ${members.length} members online)`;
      decisions.set(key, { key, move: from ? 'unassigned' : 'none', ...(from ? { from } : {}), reason: CameraReason.NoEligibleNode, message });
      continue;
    }
    load.set(best.name, (load.get(best.name) ?? 0) + 1);
    const d: CameraDecision = { key, node: best.name, move: kind };
    if (from) d.from = from;
    if (kind === 'planned' && from) d.handoverFrom = from;
    decisions.set(key, d);
  }
  if (quorum.ok) rebalance(sorted, nodes, decisions, load, opts);
  return { quorum, decisions, load };
}

/**
 * The order a pass writes its Camera statuses in: every camera that gets a node, loses one or moves (a failover above
 * all) before the ones whose status only follows what happened (a phase, a condition's wording). At 5,000 cameras a
 * pass has thousands of writes, and a camera waiting for a node must not wait behind them.
 */
export function writeOrder<T extends { decision: CameraDecision }>(writes: readonly T[]): T[] {
  const rank = (d: CameraDecision): number => (d.move === 'failover' ? 0 : isUrgent(d) ? 1 : 2);
  return writes.map((w, i) => ({ w, i })).sort((a, b) => rank(a.w.decision) - rank(b.w.decision) || a.i - b.i).map(({ w }) => w);
}

/** A write that gives a camera a node, takes it away or moves it: what a recorder waits for. */
export function isUrgent(d: CameraDecision): boolean {
  return d.move !== 'none';
}

/**
 * The writes one pass makes, in writeOrder: every urgent one and at most `routine` of the others; `deferred` is how
 * many others wait for the next pass. A pass waits for its writes, so without a cap a camera created, or a node gone
 * silent, while thousands of phases were written waited for all of them.
 */
export function passWrites<T extends { decision: CameraDecision }>(writes: readonly T[], routine: number): { writes: T[]; deferred: number } {
  const ordered = writeOrder(writes);
  const urgent = ordered.filter((w) => isUrgent(w.decision)).length;
  const now = ordered.slice(0, urgent + routine);
  return { writes: now, deferred: ordered.length - now.length };
}
