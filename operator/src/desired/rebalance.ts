// Rebalancing (kubernetes.md §4): after placement, while an online member carries two or more cameras more than a
// settled member that may record one of them, one of its recording cameras moves there make-before-break — at most a
// few planned moves in flight at once, and never towards a member that has not been online for the settling period.
import { keyOf, type NodeView } from '@vigil/kube';
import type { Camera } from '@vigil/crds';
import type { CameraDecision } from './assignment.js';
import { canRecord, isSettled, recordingReported, type PlanOptions } from './placement-rules.js';

interface Move {
  cam: Camera;
  from: string;
  to: string;
  gap: number;
}

/** Adds `rebalance` moves to `decisions` (and updates `load`); quorum is the caller's to check. */
export function rebalance(cameras: Camera[], nodes: NodeView[], decisions: Map<string, CameraDecision>, load: Map<string, number>, opts: PlanOptions): void {
  let inFlight = [...decisions.values()].filter((d) => d.handoverFrom !== undefined).length;
  const targets = nodes.filter((n) => n.member && isSettled(n, opts.now, opts.settleMs));
  if (targets.length === 0) return;
  const byName = new Map(nodes.map((n) => [n.name, n]));
  const loadOf = (name: string) => load.get(name) ?? 0;
  while (inFlight < opts.maxMovesInFlight) {
    let best: Move | undefined;
    for (const cam of cameras) {
      const d = decisions.get(keyOf(cam));
      // Only a camera that stays where it records now, with no move of its own under way.
      if (!d?.node || d.move !== 'none' || d.handoverFrom !== undefined || !recordingReported(cam, d.node)) continue;
      const owner = byName.get(d.node);
      if (!owner?.online) continue;
      for (const t of targets) {
        const gap = loadOf(owner.name) - loadOf(t.name);
        if (t.name === owner.name || gap < 2 || !canRecord(cam, t)) continue;
        // The widest gap first; among equal gaps the lightest target, then names (stable, deterministic).
        if (!best || gap > best.gap || (gap === best.gap && loadOf(t.name) < loadOf(best.to))) best = { cam, from: owner.name, to: t.name, gap };
      }
    }
    if (!best) return;
    const key = keyOf(best.cam);
    decisions.set(key, { key, node: best.to, handoverFrom: best.from, from: best.from, move: 'rebalance' });
    load.set(best.from, loadOf(best.from) - 1);
    load.set(best.to, loadOf(best.to) + 1);
    inFlight++;
  }
}
