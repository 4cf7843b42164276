// The camera credentials Secret (vigil-camera-credentials): the user name and password of every Camera, copied by the
// operator from the Secrets the Cameras name, so that the recorders may read this one Secret and no other.
import { CAMERA_CREDENTIALS_SECRET } from '@vigil/crds';
import { Resources, type Secret } from '@vigil/kube';
import { credentialsData, desiredCredentialsSecret, reservedSecrets } from '../desired/camera-credentials.js';
import { isOwnedBy } from '../desired/owner.js';
import type { ReconcileResult } from '../runtime/controller.js';
import { credentialSecretOf } from './camera-checks.js';
import { createCached, nsKey, type ControllerContext } from './context.js';
import { namespacedOwner } from './release-owner.js';

export const CREDENTIALS_KEY = 'credentials';

function sameData(a: Record<string, string> | undefined, b: Record<string, string>): boolean {
  const keys = Object.keys(b);
  return Object.keys(a ?? {}).length === keys.length && keys.every((k) => a?.[k] === b[k]);
}

export function reconcileCameraCredentialsFor(ctx: ControllerContext) {
  const reserved = reservedSecrets(ctx.settings);
  return async (_key: string, signal: AbortSignal): Promise<ReconcileResult | void> => {
    const owner = namespacedOwner(ctx);
    // Nothing is made without the release's ConfigMap to own it (it would outlive an uninstall).
    if (!owner) return { requeueAfterMs: 5000 };
    const data = credentialsData(ctx.caches.cameras.list(), credentialSecretOf(ctx), reserved);
    const want = desiredCredentialsSecret(data, ctx.namespace, owner);
    const have = ctx.caches.secrets.get(nsKey(ctx, CAMERA_CREDENTIALS_SECRET));
    if (!have) {
      await createCached(ctx, Resources.secrets, ctx.caches.secrets, want, signal);
      return;
    }
    if (sameData(have.data, data) && isOwnedBy(have, owner)) return;
    const next: Secret = { ...have, metadata: { ...have.metadata, labels: want.metadata.labels, ownerReferences: want.metadata.ownerReferences }, data };
    ctx.caches.secrets.upsert(await ctx.client.replace(Resources.secrets, next, { signal }));
    ctx.log.info({ secret: CAMERA_CREDENTIALS_SECRET, cameras: Object.keys(data).length / 2 }, 'camera credentials Secret updated');
  };
}
