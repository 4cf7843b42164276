// The Camera checks the operator makes before and apart from any recorder: a credentialsSecretRef that does not resolve
// and a source used by two Cameras become a False condition and a Warning Event naming the Secret or the other Camera.
// The conditions are applied server-side under a field manager of their own, so the assignment's and the recorders'
// status writes and these never drop each other's fields.
import { CameraCondition } from '@vigil/crds';
import { Resources, type Secret, forEachSliced } from '@vigil/kube';
import { checkCredentials, reservedSecrets } from '../desired/camera-credentials.js';
import { checksChanged, desiredCheckConditions } from '../desired/camera-checks.js';
import { findCondition } from '../desired/conditions.js';
import { duplicateSources } from '../desired/duplicate-sources.js';
import type { ReconcileResult } from '../runtime/controller.js';
import { applyStatusInBatch, nsKey, type ControllerContext } from './context.js';

export const CHECKS_KEY = 'cameras';
export const CHECKS_FIELD_MANAGER = 'vigil-operator-checks';
/**
 * Cameras judged between two turns of the event loop: at 5,000 Cameras one pass took 1-3 s of CPU on the 2-core test
 * machine, long enough, in one piece, to make the leader's Lease renewal miss its deadline.
 */
const CHECK_SLICE = 250;

/** The Secret of that name that camera credentials may come from (Opaque or basic-auth), from the caches. */
export function credentialSecretOf(ctx: ControllerContext): (name: string) => Secret | undefined {
  return (name) => ctx.caches.secrets.get(nsKey(ctx, name)) ?? ctx.caches.basicAuthSecrets.get(nsKey(ctx, name));
}

export function reconcileCameraChecksFor(ctx: ControllerContext) {
  const reserved = reservedSecrets(ctx.settings);
  return async (_key: string, signal: AbortSignal): Promise<ReconcileResult | void> => {
    const now = ctx.clock.now();
    const cameras = ctx.caches.cameras.list().filter((c) => !c.metadata.deletionTimestamp);
    const duplicates = duplicateSources(cameras);
    const secretOf = credentialSecretOf(ctx);
    const changed: Array<{ cam: (typeof cameras)[number]; wanted: ReturnType<typeof desiredCheckConditions> }> = [];
    await forEachSliced(cameras, CHECK_SLICE, signal, (cam) => {
      const wanted = desiredCheckConditions(cam, checkCredentials(cam, secretOf, reserved), duplicates.get(cam.metadata.name ?? '') ?? [], now);
      if (checksChanged(cam, wanted)) changed.push({ cam, wanted });
    });
    let conflicts = 0;
    // Routine writes in the operator's shared slots: an assignment waiting for the API server goes first.
    await ctx.cameraStatusWrites.forEach(changed, () => false, async ({ cam, wanted }) => {
      if (signal.aborted) return;
      const written = await applyStatusInBatch(ctx, Resources.cameras, ctx.caches.cameras, cam, { conditions: wanted }, signal, CHECKS_FIELD_MANAGER);
      if (written === 'gone') return;
      if (written === 'conflict') {
        conflicts++;
        return;
      }
      for (const w of wanted) {
        const before = findCondition(cam.status?.conditions, w.type);
        if (w.status === 'False' && (before?.status !== 'False' || before.reason !== w.reason || before.message !== w.message)) ctx.events.warning(written, w.reason ?? w.type, w.message ?? '');
        else if (w.status === 'True' && before?.status === 'False') ctx.events.normal(written, w.type === CameraCondition.CredentialsReady ? 'CredentialsReady' : 'SourceUnique', w.message ?? '');
      }
    });
    return conflicts > 0 ? { requeueAfterMs: 500 } : undefined;
  };
}
