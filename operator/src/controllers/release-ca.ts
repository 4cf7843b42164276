// The release CA (built-in signer, settings tls.sign): made once (ECDSA P-256 key and a ten-year certificate in the
// Secret vigil-ca, which only the operator may read), published in the ConfigMap vigil-ca for the recorder Pods, and
// rotated with a two-CA trust bundle (desired/ca-rotation.ts): the next CA in Secret vigil-ca-next, trusted, then signing.
import { X509Certificate, createPrivateKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { CA_BUNDLE_KEY, CA_CONFIGMAP_NAME, CA_NEXT_SECRET_NAME, CA_SECRET_NAME } from '@vigil/crds';
import { createCaCertificate, isAlreadyExists, isNotFound, Resources, type ConfigMap, type Secret } from '@vigil/kube';
import { caBundle, planCaRotation, type CaRotationState, type CaValidity } from '../desired/ca-rotation.js';
import { CA_COMMON_NAME, CA_LIFETIME_MS, CA_PUBLISHED_ANNOTATION, desiredCaConfigMap, desiredCaSecret, isOperatorCa, PREVIOUS_CA_KEY } from '../desired/release-ca.js';
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

interface StoredCa extends ReleaseCa {
  secret: Secret;
  keyPem: string;
}

function parseCa(secret: Secret, name: string, namespace: string): StoredCa | Error {
  try {
    const certPem = Buffer.from(secret.data?.['tls.crt'] ?? '', 'base64').toString('utf8');
    const keyPem = Buffer.from(secret.data?.['tls.key'] ?? '', 'base64').toString('utf8');
    const key = createPrivateKey(keyPem);
    const cert = new X509Certificate(certPem);
    if (!cert.ca) throw new Error('tls.crt is not a CA certificate (basicConstraints CA:TRUE)');
    if (!cert.checkPrivateKey(key)) throw new Error('tls.key is not the key of tls.crt');
    if (key.asymmetricKeyType !== 'ec') throw new Error(`the CA key must be ECDSA (it is ${key.asymmetricKeyType ?? 'unknown'})`);
    return { certPem, key, cert, secret, keyPem };
  } catch (err) {
    return new Error(`Secret ${namespace}/${name} cannot be used as the release CA: ${(err as Error).message}`);
  }
}

async function readCa(ctx: ControllerContext, name: string, signal: AbortSignal): Promise<StoredCa | Error | undefined> {
  const secret = await ctx.client.get<Secret>(Resources.secrets, ctx.namespace, name, { signal });
  return secret === undefined ? undefined : parseCa(secret, name, ctx.namespace);
}

/** Reads the signing CA from its Secret: undefined when the Secret does not exist; an Error naming the problem when it cannot be used. */
export async function readReleaseCa(ctx: ControllerContext, signal: AbortSignal): Promise<ReleaseCa | Error | undefined> {
  return readCa(ctx, CA_SECRET_NAME, signal);
}

function validity(cert: X509Certificate, pem: string): CaValidity {
  return { pem, notBefore: Date.parse(cert.validFrom), notAfter: Date.parse(cert.validTo) };
}

function previousOf(secret: Secret): CaValidity | undefined {
  const pem = Buffer.from(secret.data?.[PREVIOUS_CA_KEY] ?? '', 'base64').toString('utf8');
  if (pem === '') return undefined;
  try {
    return validity(new X509Certificate(pem), pem);
  } catch {
    return undefined; // unreadable: not trusted, dropped at the next switch
  }
}

function newCa(now: number): { certPem: string; keyPem: string } {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const certPem = createCaCertificate(privateKey, CA_COMMON_NAME, new Date(now - 3600_000), new Date(now + CA_LIFETIME_MS));
  return { certPem, keyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() };
}

export function reconcileReleaseCaFor(ctx: ControllerContext) {
  let reported: string | undefined;
  const report = (message: string | undefined): void => {
    if (message !== undefined && reported !== message) ctx.log.error({ secret: CA_SECRET_NAME }, message);
    reported = message;
  };
  return async (_key: string, signal: AbortSignal): Promise<ReconcileResult | void> => {
    if (ctx.settings.tls?.sign !== true) return;
    const owner = namespacedOwner(ctx);
    if (!owner) return { requeueAfterMs: 5000 };
    const now = ctx.clock.now();
    let ca = await readCa(ctx, CA_SECRET_NAME, signal);
    if (ca instanceof Error) {
      // Never overwritten: the Secret may be one the user brought; nothing is signed until it is fixed.
      report(`${ca.message}; no node certificate is signed until it is fixed`);
      return { requeueAfterMs: 30_000 };
    }
    if (ca === undefined) {
      const made = newCa(now);
      try {
        await ctx.client.create(Resources.secrets, desiredCaSecret(ctx.namespace, made.certPem, made.keyPem), { signal });
        ctx.log.info({ secret: CA_SECRET_NAME, not_after: new X509Certificate(made.certPem).validTo }, 'release CA made: node certificates are signed with it');
      } catch (err) {
        if (!isAlreadyExists(err)) throw err; // the other replica, a moment ago: read what it made
      }
      ca = await readCa(ctx, CA_SECRET_NAME, signal);
      if (!(ca !== undefined && !(ca instanceof Error))) return { requeueAfterMs: 1000 };
    }
    const next = await readCa(ctx, CA_NEXT_SECRET_NAME, signal);
    if (next instanceof Error) report(`${next.message}; the rotation waits until it is fixed (the current CA keeps signing)`);
    else report(undefined);
    const nextCa = next instanceof Error ? undefined : next;
    const publishedAt = Date.parse(nextCa?.secret.metadata.annotations?.[CA_PUBLISHED_ANNOTATION] ?? '');
    const state: CaRotationState = {
      current: validity(ca.cert, ca.certPem),
      madeByOperator: isOperatorCa(ca.secret),
      ...(nextCa === undefined ? {} : { next: { ...validity(nextCa.cert, nextCa.certPem), ...(Number.isFinite(publishedAt) ? { publishedAt } : {}) } }),
      ...(previousOf(ca.secret) === undefined ? {} : { previous: previousOf(ca.secret) }),
    };
    const step = planCaRotation(state, now);
    if (step.action !== 'none') {
      await takeStep(ctx, step.action, ca, nextCa, signal);
      ctx.log.info({ step: step.action, why: step.why }, `release CA rotation: ${step.action} (${step.why})`);
      return { requeueAfterMs: 1000 };
    }

    const bundle = caBundle(state, now);
    const want = desiredCaConfigMap(ctx.namespace, bundle, owner);
    const have = ctx.caches.configMaps.get(nsKey(ctx, CA_CONFIGMAP_NAME));
    if (!have) await createCached(ctx, Resources.configMaps, ctx.caches.configMaps, want, signal);
    else if (have.data?.[CA_BUNDLE_KEY] !== bundle || !isOwnedBy(have, owner)) {
      const updated: ConfigMap = { ...have, metadata: { ...have.metadata, labels: want.metadata.labels, ownerReferences: want.metadata.ownerReferences }, data: want.data ?? {} };
      ctx.caches.configMaps.upsert(await ctx.client.replace(Resources.configMaps, updated, { signal }));
      ctx.log.info({ configmap: CA_CONFIGMAP_NAME, cas: bundle.match(/BEGIN CERTIFICATE/g)?.length ?? 0 }, 'release CA trust bundle published for the recorders');
    }
    // The bundle with the next CA is out: its distribution time starts now (written once).
    if (nextCa !== undefined && state.next?.publishedAt === undefined && bundle.includes(nextCa.certPem.trim())) {
      const annotations = { ...nextCa.secret.metadata.annotations, [CA_PUBLISHED_ANNOTATION]: new Date(now).toISOString() };
      await ctx.client.replace(Resources.secrets, { ...nextCa.secret, metadata: { ...nextCa.secret.metadata, annotations } }, { signal });
      ctx.log.info({ secret: CA_NEXT_SECRET_NAME }, 'the next release CA is in the trust bundle; it signs once that has reached every recorder');
      return { requeueAfterMs: 1000 };
    }
    return { requeueAfterMs: Math.max(1000, Math.min(step.recheckAt - now, 6 * 3600_000)) };
  };
}

/** One rotation step, written so that a crash between two writes leaves a state the plan finishes from. */
async function takeStep(ctx: ControllerContext, action: 'make-next' | 'switch' | 'forget-next' | 'drop-previous', ca: StoredCa, next: StoredCa | undefined, signal: AbortSignal): Promise<void> {
  const deleteNext = async (): Promise<void> => {
    await ctx.client.delete(Resources.secrets, ctx.namespace, CA_NEXT_SECRET_NAME, { signal }).catch((err: unknown) => {
      if (!isNotFound(err)) throw err;
    });
  };
  if (action === 'make-next') {
    const made = newCa(ctx.clock.now());
    await ctx.client.create(Resources.secrets, desiredCaSecret(ctx.namespace, made.certPem, made.keyPem, { name: CA_NEXT_SECRET_NAME }), { signal }).catch((err: unknown) => {
      if (!isAlreadyExists(err)) throw err;
    });
  } else if (action === 'switch' && next !== undefined) {
    // The next CA signs; the one that signed until now stays trusted (previous.crt) until it ends.
    const body = desiredCaSecret(ctx.namespace, next.certPem, next.keyPem, { previousPem: ca.certPem });
    // Labelled as the next CA was: one the operator made is rotated by it again, one you brought waits for yours.
    await ctx.client.replace(Resources.secrets, { ...ca.secret, metadata: { ...ca.secret.metadata, labels: next.secret.metadata.labels ?? body.metadata.labels }, data: body.data ?? {} }, { signal });
    await deleteNext();
  } else if (action === 'forget-next') {
    await deleteNext();
  } else if (action === 'drop-previous') {
    const data = { ...ca.secret.data };
    delete data[PREVIOUS_CA_KEY];
    await ctx.client.replace(Resources.secrets, { ...ca.secret, data }, { signal });
  }
}
