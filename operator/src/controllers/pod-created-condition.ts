// A RecorderNode's PodCreated condition: True while its recorder Pod exists, False with the API's own message while the
// Pod cannot be made (refused by Pod Security admission, invalid, or its ConfigMap missing), with a Warning Event.
// Written through applyStatusCached under a field manager of its own: the status controller's writes keep it, and it keeps theirs.
import { API_VERSION, RECORDER_NODE_KIND, RecorderNodeCondition, type Condition, type RecorderNode } from '@vigil/crds';
import { isNotFound, Resources } from '@vigil/kube';
import { findCondition, setCondition } from '../desired/conditions.js';
import { applyStatusCached, type ControllerContext } from './context.js';

export const POD_FIELD_MANAGER = 'vigil-operator-recorderpod';

export interface PodCreatedState {
  status: 'True' | 'False';
  reason: string;
  message: string;
}

/** Applies the condition when it differs from what the RecorderNode shows; a False one also makes a Warning Event. */
export async function reportPodCreated(ctx: ControllerContext, rn: RecorderNode, state: PodCreatedState, signal: AbortSignal): Promise<void> {
  const current = findCondition(rn.status?.conditions, RecorderNodeCondition.PodCreated);
  if (current?.status === state.status && current.reason === state.reason && current.message === state.message) return;
  if (state.status === 'False') ctx.events.warning(rn, state.reason, state.message);
  else if (current?.status === 'False') ctx.events.normal(rn, state.reason, state.message);
  const next = setCondition(current ? [current] : [], { type: RecorderNodeCondition.PodCreated, ...state, observedGeneration: rn.metadata.generation ?? 0 }, ctx.clock.now());
  try {
    await applyStatusCached(ctx, Resources.recorderNodes, ctx.caches.recorderNodes, { ...rn, apiVersion: API_VERSION, kind: RECORDER_NODE_KIND }, { conditions: next as Condition[] }, signal, POD_FIELD_MANAGER);
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
}
