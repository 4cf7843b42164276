// The release CA (built-in signer, settings tls.sign): made once (ECDSA P-256 key and a ten-year certificate in the
// Secret vigil-ca, which only the operator may read), then published in the ConfigMap vigil-ca for the recorder Pods.
import { X509Certificate, createPrivateKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { CA_BUNDLE_KEY, CA_CONFIGMAP_NAME, CA_SECRET_NAME } from '@vigil/crds';
import { createCaCertificate, isAlreadyExists, Resources, type ConfigMap, type Secret } from '@vigil/kube';
import { CA_COMMON_NAME, CA_LIFETIME_MS, desiredCaConfigMap, desiredCaSecret } from '../desired/release-ca.js';
import { isOwnedBy } from '../desired/owner.js';
import type { ReconcileResult } from '../runtime/controller.js';
import { createCached, nsKey, type ControllerContext } from './context.js';
import { namespacedOwner } from './release-owner.js';

export const RELEASE_CA_KEY = 'release-ca';

export interface ReleaseCa {
  certPem: string;
  key: KeyObject;
  cert: X509Certificate;
}

/** Reads the CA from its Secret: undefined when the Secret does not exist; an Error naming the problem when it cannot be used. */
export async function readReleaseCa(ctx: ControllerContext, signal: AbortSignal): Promise<ReleaseCa | Error | undefined> {
  const secret = await ctx.client.get<Secret>(Resources.secrets, ctx.namespace, CA_SECRET_NAME, { signal });
  if (secret === undefined) return undefined;
  try {
    const certPem = Buffer.from(secret.data?.['tls.crt'] ?? '', 'base64').toString('utf8');
    const key = createPrivateKey(Buffer.from(secret.data?.['tls.key'] ?? '', 'base64').toString('utf8'));
    const cert = new X509Certificate(certPem);
    if (!cert.ca) throw new Error('tls.crt is not a CA certificate (basicConstraints CA:TRUE)');
    if (!cert.checkPrivateKey(key)) throw new Error('tls.key is not the key of tls.crt');
    if (key.asymmetricKeyType !== 'ec') throw new Error(`the CA key must be ECDSA (it is ${key.asymmetricKeyType ?? 'unknown'})`);
    return { certPem, key, cert };
  } catch (err) {
    return new Error(`Secret ${ctx.namespace}/${CA_SECRET_NAME} cannot be used as the release CA: ${(err as Error).message}`);
  }
}

export function reconcileReleaseCaFor(ctx: ControllerContext) {
  let reported: string | undefined;
  return async (_key: string, signal: AbortSignal): Promise<ReconcileResult | void> => {
    if (ctx.settings.tls?.sign !== true) return;
    const owner = namespacedOwner(ctx);
    if (!owner) return { requeueAfterMs: 5000 };
    let ca = await readReleaseCa(ctx, signal);
    if (ca instanceof Error) {
      // Never overwritten: the Secret may be one the user brought; nothing is signed until it is fixed.
      if (reported !== ca.message) ctx.log.error({ secret: CA_SECRET_NAME }, `${ca.message}; no node certificate is signed until it is fixed`);
      reported = ca.message;
      return { requeueAfterMs: 30_000 };
    }
    reported = undefined;
    if (ca === undefined) {
      const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
      const now = ctx.clock.now();
      const certPem = createCaCertificate(privateKey, CA_COMMON_NAME, new Date(now - 3600_000), new Date(now + CA_LIFETIME_MS));
      const keyPem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
      try {
        await ctx.client.create(Resources.secrets, desiredCaSecret(ctx.namespace, certPem, keyPem), { signal });
        ctx.log.info({ secret: CA_SECRET_NAME, not_after: new X509Certificate(certPem).validTo }, 'release CA made: node certificates are signed with it');
      } catch (err) {
        if (!isAlreadyExists(err)) throw err; // the other replica, a moment ago: read what it made
      }
      ca = await readReleaseCa(ctx, signal);
      if (!(ca !== undefined && !(ca instanceof Error))) return { requeueAfterMs: 1000 };
    }
    const want = desiredCaConfigMap(ctx.namespace, ca.certPem, owner);
    const have = ctx.caches.configMaps.get(nsKey(ctx, CA_CONFIGMAP_NAME));
    if (!have) {
      await createCached(ctx, Resources.configMaps, ctx.caches.configMaps, want, signal);
      return;
    }
    if (have.data?.[CA_BUNDLE_KEY] === ca.certPem && isOwnedBy(have, owner)) return;
    const next: ConfigMap = { ...have, metadata: { ...have.metadata, labels: want.metadata.labels, ownerReferences: want.metadata.ownerReferences }, data: want.data ?? {} };
    ctx.caches.configMaps.upsert(await ctx.client.replace(Resources.configMaps, next, { signal }));
    ctx.log.info({ configmap: CA_CONFIGMAP_NAME }, 'release CA certificate published for the recorders');
  };
}
