// The recorders' CertificateSigningRequests of the configured signer: each approved or denied (desired/node-certificate.ts,
// Events on the node's RecorderNode), signed with the release CA when the operator signs (settings tls.sign), and
// deleted an hour after it finished (issued, denied or failed).
import { createHash } from 'node:crypto';
import { FINISHED_REQUEST_TTL_MS } from '@vigil/crds';
import { BACKDATE_MS, issueCertificate, readSigningRequest, Resources, type CertificateSigningRequest, type KubeObject } from '@vigil/kube';
import { awaitsDecision, decideCertificateRequest, decideSigning, finishedRequestExpiresAt } from '../desired/node-certificate.js';
import type { ReconcileResult } from '../runtime/controller.js';
import type { ControllerContext } from './context.js';
import { readReleaseCa } from './release-ca.js';

function isApproved(csr: CertificateSigningRequest): boolean {
  return (csr.status?.conditions ?? []).some((c) => c.type === 'Approved' && c.status === 'True');
}

function conditionTime(now: number): string {
  return new Date(now).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function isFailed(csr: CertificateSigningRequest): boolean {
  return (csr.status?.conditions ?? []).some((c) => c.type === 'Failed' && c.status === 'True');
}

function asEventObject(csr: CertificateSigningRequest): KubeObject & { apiVersion: string; kind: string } {
  return { ...csr, apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest' };
}

export function reconcileCertificateRequestsFor(ctx: ControllerContext) {
  const recorderNodeNamed = (node: string) => ctx.caches.recorderNodes.get(node);
  return async (name: string, signal: AbortSignal): Promise<ReconcileResult | void> => {
    const tls = ctx.settings.tls;
    const requests = ctx.caches.certificateSigningRequests;
    const csr = requests?.get(name);
    if (tls === undefined || requests === undefined || csr === undefined || csr.spec.signerName !== tls.signerName) return;
    const log = ctx.log.child({ csr: name });

    if (awaitsDecision(csr, tls)) {
      const decision = decideCertificateRequest(csr, ctx.caches.recorderNodes.list(), ctx.namespace, ctx.settings);
      if (decision.action === 'none') return;
      const now = conditionTime(ctx.clock.now());
      const condition = decision.action === 'approve'
        ? { type: 'Approved', status: 'True', reason: 'RecorderNodeIdentity', message: decision.message, lastUpdateTime: now }
        : { type: 'Denied', status: 'True', reason: decision.reason, message: decision.message, lastUpdateTime: now };
      const body: CertificateSigningRequest = { ...csr, status: { ...csr.status, conditions: [...(csr.status?.conditions ?? []), condition] } };
      requests.upsert(await ctx.client.replace(Resources.certificateSigningRequests, body, { subresource: 'approval', signal }));
      const rn = decision.node === undefined ? undefined : recorderNodeNamed(decision.node);
      if (decision.action === 'approve') {
        log.info({ node: decision.node }, `certificate request approved: ${decision.message}`);
        if (rn) ctx.events.normal(rn, 'CertificateApproved', `CertificateSigningRequest ${name} approved: ${decision.message}`);
      } else {
        log.warn({ node: decision.node, reason: decision.reason }, `certificate request denied: ${decision.message}`);
        ctx.events.warning(rn ?? asEventObject(csr), 'CertificateDenied', `CertificateSigningRequest ${name} denied (${decision.reason}): ${decision.message}`);
      }
      return;
    }

    if (tls.sign && isApproved(csr) && !isFailed(csr) && (csr.status?.certificate ?? '') === '') {
      const verdict = decideSigning(csr, ctx.caches.recorderNodes.list(), ctx.namespace, ctx.settings);
      if (verdict.action === 'fail') {
        const now = conditionTime(ctx.clock.now());
        const failed = { type: 'Failed', status: 'True', reason: verdict.reason, message: verdict.message, lastUpdateTime: now, lastTransitionTime: now };
        const body: CertificateSigningRequest = { ...csr, status: { ...csr.status, conditions: [...(csr.status?.conditions ?? []), failed] } };
        requests.upsert(await ctx.client.replace(Resources.certificateSigningRequests, body, { subresource: 'status', signal }));
        const rn = verdict.node === undefined ? undefined : recorderNodeNamed(verdict.node);
        log.warn({ node: verdict.node, reason: verdict.reason }, `approved certificate request not signed: ${verdict.message}`);
        ctx.events.warning(rn ?? asEventObject(csr), 'CertificateNotSigned', `CertificateSigningRequest ${name} approved but not signed (${verdict.reason}): ${verdict.message}`);
        return;
      }
      const ca = await readReleaseCa(ctx, signal);
      if (ca === undefined || ca instanceof Error) return { requeueAfterMs: 2000 }; // the release-ca controller says why
      const request = readSigningRequest(Buffer.from(csr.spec.request, 'base64').toString('utf8'));
      const now = ctx.clock.now();
      const lifetimeMs = Math.min(tls.certificateLifetimeSeconds, csr.spec.expirationSeconds ?? Infinity) * 1000;
      const caStart = Date.parse(ca.cert.validFrom);
      const caEnd = Date.parse(ca.cert.validTo);
      const leaf = issueCertificate({
        publicKeyDer: request.publicKeyDer,
        dnsNames: request.dnsNames,
        clientAuth: (csr.spec.usages ?? []).includes('client auth'),
        // Backdated for clocks a little behind, by at most a tenth of the lifetime (a short one would otherwise be mostly past).
        notBefore: new Date(Math.max(now - Math.min(BACKDATE_MS, lifetimeMs / 10), caStart)),
        notAfter: new Date(Math.min(now + lifetimeMs, caEnd)),
      }, ca.certPem, ca.key);
      // The leaf, then the CA: the node serves the whole chain (the bundle the recorders trust has the CA too).
      const certificate = Buffer.from(`${leaf}${ca.certPem}`).toString('base64');
      const body: CertificateSigningRequest = { ...csr, status: { ...csr.status, certificate } };
      requests.upsert(await ctx.client.replace(Resources.certificateSigningRequests, body, { subresource: 'status', signal }));
      log.info({ names: request.dnsNames, lifetime_s: Math.round(lifetimeMs / 1000), fingerprint: createHash('sha256').update(leaf).digest('hex').slice(0, 16) }, 'node certificate signed with the release CA');
      return;
    }

    const expiresAt = finishedRequestExpiresAt(csr, tls, FINISHED_REQUEST_TTL_MS);
    if (expiresAt === undefined) return;
    const wait = expiresAt - ctx.clock.now();
    if (wait > 0) return { requeueAfterMs: Math.min(wait + 1000, 3600_000) };
    await ctx.client.delete(Resources.certificateSigningRequests, undefined, name, { uid: csr.metadata.uid ?? '', signal });
    log.info('finished certificate request deleted (an hour after it finished)');
  };
}
