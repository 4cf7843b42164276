// Camera + its assignment decision → the Camera status fields the operator owns and applies as `vigil-operator`
// (node, url, phase, the Assigned condition, handoverFrom, lastMoveTime, observedGeneration). The recorder's Recording
// condition and recordingNode are its own: read for the phase, never written here.
import { CameraCondition, CameraReason, type Camera, type CameraPhase, type CameraStatus } from '@vigil/crds';
import { fromApiTime, toApiTime, type NodeView } from '@vigil/kube';
import type { CameraDecision } from './assignment.js';
import { findCondition, setCondition } from './conditions.js';

/** A node that says it cannot record a camera for this long makes it Failed. */
export const FAILED_AFTER_MS = 60_000;

export function cameraPhase(status: CameraStatus, now: number): CameraPhase {
  if (!status.node) return 'Pending';
  const rec = findCondition(status.conditions, CameraCondition.Recording);
  if (rec?.status === 'True' && status.recordingNode === status.node) return 'Recording';
  if (rec?.status === 'False' && rec.reason === CameraReason.StreamUnavailable) {
    const since = fromApiTime(rec.lastTransitionTime);
    const movedAt = fromApiTime(status.lastMoveTime);
    // Only a report made since the camera came to this node counts against it.
    if (since !== undefined && (movedAt === undefined || since >= movedAt) && now - since > FAILED_AFTER_MS) return 'Failed';
  }
  return 'Assigned';
}

/** When the phase would next change by time alone (Assigned → Failed), in ms from now; undefined if never. */
export function nextPhaseChangeIn(status: CameraStatus, now: number): number | undefined {
  const rec = findCondition(status.conditions, CameraCondition.Recording);
  if (!status.node || rec?.status !== 'False' || rec.reason !== CameraReason.StreamUnavailable) return undefined;
  const since = fromApiTime(rec.lastTransitionTime);
  if (since === undefined || now - since > FAILED_AFTER_MS) return undefined;
  return since + FAILED_AFTER_MS - now + 1000;
}

/** The fields of a Camera status the operator owns. */
export type OwnedCameraStatus = Pick<CameraStatus, 'node' | 'url' | 'phase' | 'handoverFrom' | 'lastMoveTime' | 'observedGeneration' | 'conditions'>;

/** The part of a status the operator owns, as it stands (to compare with the desired one). */
export function ownedCameraStatus(status: CameraStatus | undefined): OwnedCameraStatus {
  const s = status ?? {};
  const owned: OwnedCameraStatus = {};
  for (const key of ['node', 'url', 'phase', 'handoverFrom', 'lastMoveTime', 'observedGeneration'] as const) {
    if (s[key] !== undefined && s[key] !== null) (owned as Record<string, unknown>)[key] = s[key];
  }
  const assigned = (s.conditions ?? []).filter((c) => c.type === CameraCondition.Assigned);
  if (assigned.length > 0) owned.conditions = assigned;
  return owned;
}

export function desiredCameraStatus(cam: Camera, decision: CameraDecision, nodes: Map<string, NodeView>, now: number): OwnedCameraStatus {
  const prev = cam.status ?? {};
  const next: OwnedCameraStatus = {};
  if (prev.lastMoveTime) next.lastMoveTime = prev.lastMoveTime;
  if (decision.node) {
    next.node = decision.node;
    const url = nodes.get(decision.node)?.url;
    if (url) next.url = url;
  }
  if (decision.handoverFrom) next.handoverFrom = decision.handoverFrom;
  if ((prev.node || undefined) !== decision.node && decision.node) next.lastMoveTime = toApiTime(now);
  const assigned = decision.node
    ? {
        type: CameraCondition.Assigned,
        status: 'True' as const,
        reason: decision.handoverFrom ? CameraReason.Handover : CameraReason.NodeAssigned,
        message: decision.handoverFrom
          ? `moving from ${decision.handoverFrom} to ${decision.node}: ${decision.handoverFrom} records until ${decision.node} reports Recording`
          : (decision.message ?? `recorded by ${decision.node}`),
      }
    : { type: CameraCondition.Assigned, status: 'False' as const, reason: decision.reason ?? CameraReason.NoEligibleNode, message: decision.message ?? 'no node may record it' };
  next.conditions = setCondition(ownedCameraStatus(prev).conditions, { ...assigned, observedGeneration: cam.metadata.generation ?? 0 }, now);
  if (cam.metadata.generation !== undefined) next.observedGeneration = cam.metadata.generation;
  // The phase reads the recorder's Recording condition and recordingNode too.
  const recorders = (prev.conditions ?? []).filter((c) => c.type !== CameraCondition.Assigned);
  next.phase = cameraPhase({ ...next, conditions: [...next.conditions, ...recorders], ...(prev.recordingNode ? { recordingNode: prev.recordingNode } : {}) }, now);
  return next;
}

/** Equal as far as a status write is concerned. */
export function sameStatus(a: unknown, b: unknown): boolean {
  return JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));
}

function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical);
  if (v && typeof v === 'object') {
    return Object.fromEntries(
      Object.entries(v as Record<string, unknown>)
        .filter(([, x]) => x !== undefined && x !== null)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([k, x]) => [k, canonical(x)]),
    );
  }
  return v;
}
