// The rules every placement decision uses: who may record a camera (member, pins), whether the new node reports
// Recording (the end of a make-before-break move), whether a member is settled, and the planning options.
import type { Camera } from '@vigil/crds';
import type { NodeView } from '@vigil/kube';

export interface PlanOptions {
  /** The time the plan is made at (ms). */
  now: number;
  /** A member online for this long is settled: rebalancing moves cameras only towards settled members. */
  settleMs: number;
  /** Planned moves (handoverFrom set) in flight at once, beyond which rebalancing waits. */
  maxMovesInFlight: number;
}

/** Settled after 30 s online; "a few cameras at a time": rebalancing starts no more moves while 3 are in flight. */
export const DEFAULT_PLAN_OPTIONS: PlanOptions = { now: 0, settleMs: 30_000, maxMovesInFlight: 3 };

/** Online long enough (per its Online condition) that it is not flapping. */
export function isSettled(node: NodeView, now: number, settleMs: number): boolean {
  return node.online && node.onlineSince !== undefined && now - node.onlineSince >= settleMs;
}

export function canRecord(cam: Camera, node: NodeView): boolean {
  if (!node.member) return false;
  if (cam.spec.nodeName && cam.spec.nodeName !== node.name) return false;
  for (const [label, value] of Object.entries(cam.spec.nodeSelector ?? {})) {
    if (node.labels[label] !== value) return false;
  }
  return true;
}

export function recordingReported(cam: Camera, node: string): boolean {
  const rec = cam.status?.conditions?.find((c) => c.type === 'Recording');
  return rec?.status === 'True' && cam.status?.recordingNode === node;
}
