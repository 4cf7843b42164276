// A Camera's checks → its CredentialsReady and SourceUnique conditions (what a user sees in `kubectl describe cam`
// before any recorder runs): the Secret it names, and the other Cameras with the same source.
import { CameraCondition, CameraReason, type Camera, type Condition } from '@vigil/crds';
import { sameCredentialsRef, type CredentialsCheck } from './camera-credentials.js';
import { findCondition, setCondition } from './conditions.js';

export const CHECK_CONDITIONS = [CameraCondition.CredentialsReady, CameraCondition.SourceUnique] as const;

/** The two conditions as they should be now (lastTransitionTime kept while the status stays). */
export function desiredCheckConditions(cam: Camera, credentials: CredentialsCheck, sameSource: readonly string[], now: number): Condition[] {
  const generation = cam.metadata.generation ?? 0;
  const prev = cam.status?.conditions;
  const credentialsCondition = { type: CameraCondition.CredentialsReady, status: credentials.ok ? ('True' as const) : ('False' as const), reason: credentials.reason, message: credentials.message, observedGeneration: generation };
  const unique = sameSource.length === 0
    ? { type: CameraCondition.SourceUnique, status: 'True' as const, reason: CameraReason.UniqueSource, message: 'no other Camera has this source', observedGeneration: generation }
    : {
        type: CameraCondition.SourceUnique,
        status: 'False' as const,
        reason: CameraReason.DuplicateSource,
        message: `Camera ${sameSource.join(', Camera ')} ${sameSource.length === 1 ? 'has' : 'have'} the same source; each is recorded on its own (one connection to the camera each): delete the Camera you did not mean`,
        observedGeneration: generation,
      };
  return CHECK_CONDITIONS.map((type) => {
    const want = type === CameraCondition.CredentialsReady ? credentialsCondition : unique;
    const current = findCondition(prev, type);
    return setCondition(current ? [current] : [], want, now)[0] as Condition;
  });
}

/** Two check conditions say the same: status, reason, message and generation (the transition time aside). */
function sameCheck(a: Condition | undefined, b: Condition | undefined): boolean {
  return a?.status === b?.status && a?.reason === b?.reason && a?.message === b?.message && a?.observedGeneration === b?.observedGeneration;
}

/** The conditions differ from what the Camera shows in status, reason, message or generation (times aside). */
export function checksChanged(cam: Camera, wanted: Condition[]): boolean {
  return wanted.some((w) => !sameCheck(findCondition(cam.status?.conditions, w.type), w));
}

/**
 * Whether a change of one Camera (`old` → `obj`, either undefined when it came or went) can change any Camera's checks:
 * its source, its credentials reference, its generation or deletion, or the check conditions themselves (someone else
 * changed them). The other status fields (the assignment, the recorders' reports) change thousands of times during a
 * rollout and never a check: a pass over every Camera for each of them held the operator's event loop for seconds.
 */
export function checksInputsChanged(obj: Camera | undefined, old: Camera | undefined): boolean {
  if (obj === undefined || old === undefined) return true;
  if (obj.metadata.generation !== old.metadata.generation || obj.metadata.deletionTimestamp !== old.metadata.deletionTimestamp) return true;
  if (obj.spec.source !== old.spec.source || !sameCredentialsRef(obj, old)) return true;
  return CHECK_CONDITIONS.some((type) => !sameCheck(findCondition(obj.status?.conditions, type), findCondition(old.status?.conditions, type)));
}
