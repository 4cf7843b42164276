// A node's certificate, as the operator wants it: the names it carries, and the decision on a CertificateSigningRequest
// (approve only a node's own request for exactly its names, else deny saying why). Pure: no I/O.
import { X509Certificate } from 'node:crypto';
import { nodeNameOf, type RecorderNode } from '@vigil/crds';
import { readSigningRequest, SigningRequestError, type CertificateSigningRequest, type SigningRequestContent } from '@vigil/kube';
import type { Settings } from '../config/settings.js';
import { nodeHostLabel, recorderName } from './names.js';
import { publicHost } from './urls.js';

type TlsSettings = NonNullable<Settings['tls']>;

/** The usages a node may ask for: a TLS server, and a TLS client (mutual TLS). */
const ALLOWED_USAGES = new Set(['digital signature', 'key encipherment', 'server auth', 'client auth']);

/**
 * Every name a node's certificate carries, in this order: its Service (`vigil-recorder-<node>`), qualified by the
 * namespace, `svc` and the cluster domain; its Ingress host when the settings make one; the settings' extra names.
 */
export function nodeCertificateNames(nodeName: string, namespace: string, settings: Settings): string[] {
  const service = recorderName(nodeName);
  const names = [service, `${service}.${namespace}`, `${service}.${namespace}.svc`, `${service}.${namespace}.svc.${settings.tls?.clusterDomain ?? 'cluster.local'}`];
  const host = publicHost(nodeName, settings);
  if (host !== undefined) names.push(host);
  for (const extra of settings.tls?.extraDnsNames ?? []) names.push(extra.replaceAll('{node}', nodeHostLabel(nodeName)));
  return [...new Set(names)];
}

type Judgement = { action: 'approve'; node: string; message: string } | { action: 'deny'; node: string | undefined; reason: string; message: string };
export type CertificateDecision = { action: 'none' } | Judgement;

function conditionTypes(csr: CertificateSigningRequest): Set<string> {
  return new Set((csr.status?.conditions ?? []).filter((c) => c.status === 'True').map((c) => c.type));
}

/** The RecorderNode whose ServiceAccount is `username` (system:serviceaccount:<namespace>:vigil-recorder-<node>). */
function requestingNode(username: string, namespace: string, nodes: readonly RecorderNode[]): RecorderNode | undefined {
  const prefix = `system:serviceaccount:${namespace}:`;
  if (!username.startsWith(prefix)) return undefined;
  const account = username.slice(prefix.length);
  return nodes.find((rn) => recorderName(nodeNameOf(rn)) === account);
}

function listed(names: readonly string[]): string {
  return names.map((n) => JSON.stringify(n)).join(', ');
}

/** Whether a request still waits for a decision: it names this signer and is neither approved nor denied. */
export function awaitsDecision(csr: CertificateSigningRequest, tls: TlsSettings): boolean {
  const types = conditionTypes(csr);
  return csr.spec.signerName === tls.signerName && !types.has('Approved') && !types.has('Denied') && !types.has('Failed');
}

/**
 * The decision on a request of this signer: approve when the API server says a node's own ServiceAccount sent it
 * (spec.username, which the requester cannot set) and it asks, with an ECDSA P-256 key it holds, for exactly that node's
 * names and for TLS usages only; deny otherwise, with a reason and a message naming what is wrong.
 */
export function decideCertificateRequest(csr: CertificateSigningRequest, nodes: readonly RecorderNode[], namespace: string, settings: Settings): CertificateDecision {
  const tls = settings.tls;
  if (tls === undefined || !awaitsDecision(csr, tls)) return { action: 'none' };
  return judgeCertificateRequest(csr, nodes, namespace, settings);
}

export type SigningDecision = { action: 'sign'; node: string } | { action: 'fail'; node: string | undefined; reason: string; message: string };

/**
 * Whether an approved request may be signed: the same rule as approval, decided again at signing (as
 * kube-controller-manager's signers do), so a request approved by a person, or for a node since gone, gets no
 * release-CA certificate for names that are not the requester's. A request that fails it is marked Failed.
 */
export function decideSigning(csr: CertificateSigningRequest, nodes: readonly RecorderNode[], namespace: string, settings: Settings): SigningDecision {
  const judged = judgeCertificateRequest(csr, nodes, namespace, settings);
  if (judged.action === 'approve') return { action: 'sign', node: judged.node };
  return { action: 'fail', node: judged.node, reason: judged.reason, message: `not signed: ${judged.message}` };
}

function judgeCertificateRequest(csr: CertificateSigningRequest, nodes: readonly RecorderNode[], namespace: string, settings: Settings): Judgement {
  const username = csr.spec.username ?? '';
  const rn = requestingNode(username, namespace, nodes);
  if (rn === undefined) {
    return { action: 'deny', node: undefined, reason: 'NotARecorderNode', message: `requested by "${username}", which is not the ServiceAccount of a recorder node (system:serviceaccount:${namespace}:vigil-recorder-<node>)` };
  }
  const node = nodeNameOf(rn);
  const deny = (reason: string, message: string): Judgement => ({ action: 'deny', node, reason, message: `node ${node}: ${message}` });
  let content: SigningRequestContent;
  try {
    content = readSigningRequest(Buffer.from(csr.spec.request, 'base64').toString('utf8'));
  } catch (err) {
    if (err instanceof SigningRequestError) return deny('InvalidRequest', err.message);
    throw err;
  }
  if (!content.p256 || !content.signatureValid) return deny('KeyNotAllowed', `the request must carry an ECDSA P-256 key and be signed by it with SHA-256 (it has ${content.keyType}${content.p256 ? ', badly signed' : ''})`);
  if (content.otherNames.length > 0) return deny('NamesNotAllowed', `only DNS names may be asked for, not ${listed(content.otherNames)}`);
  const want = nodeCertificateNames(node, namespace, settings);
  const unexpected = content.dnsNames.filter((n) => !want.includes(n));
  const missing = want.filter((n) => !content.dnsNames.includes(n));
  if (unexpected.length > 0 || missing.length > 0) {
    const parts = [unexpected.length > 0 ? `names that are not its own: ${listed(unexpected)}` : '', missing.length > 0 ? `its names missing: ${listed(missing)}` : ''].filter((p) => p !== '');
    return deny('NamesMismatch', `the request must name exactly the node's names; ${parts.join('; ')}`);
  }
  if (content.commonName !== '' && !want.includes(content.commonName)) return deny('NamesMismatch', `the subject's common name ${JSON.stringify(content.commonName)} is not one of the node's names`);
  const usages = csr.spec.usages ?? [];
  const badUsages = usages.filter((u) => !ALLOWED_USAGES.has(u));
  if (badUsages.length > 0 || !usages.includes('server auth')) {
    return deny('UsagesNotAllowed', `usages must include "server auth" and be among ${listed([...ALLOWED_USAGES])}${badUsages.length > 0 ? `; not ${listed(badUsages)}` : ''}`);
  }
  return { action: 'approve', node, message: `node ${node}'s own ServiceAccount asked for exactly its names (${want.length}) with a P-256 key` };
}

/** When a request finished: the latest time of its Approved, Denied or Failed condition or of its certificate's start. */
function finishedAt(csr: CertificateSigningRequest): number | undefined {
  const times = (csr.status?.conditions ?? [])
    .filter((c) => c.status === 'True' && ['Approved', 'Denied', 'Failed'].includes(c.type))
    .flatMap((c) => [Date.parse(c.lastUpdateTime ?? ''), Date.parse(c.lastTransitionTime ?? '')]);
  const certificate = csr.status?.certificate ?? '';
  if (certificate !== '') times.push(certificateStart(certificate));
  const known = times.filter((t) => Number.isFinite(t));
  return known.length > 0 ? Math.max(...known) : undefined;
}

function certificateStart(base64: string): number {
  const pem = Buffer.from(base64, 'base64').toString('utf8');
  const block = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/.exec(pem)?.[0];
  if (block === undefined) return NaN;
  try {
    return Date.parse(new X509Certificate(block).validFrom);
  } catch {
    return NaN;
  }
}

/**
 * When the operator deletes a request this signer is done with (issued, denied or failed): `ttlMs` after it finished
 * (its conditions' times, the issued certificate's start), not after it was created — a request signed after waiting an
 * hour stays an hour for its node to read. Falls back to the creation time when the request carries no time.
 */
export function finishedRequestExpiresAt(csr: CertificateSigningRequest, tls: TlsSettings, ttlMs: number): number | undefined {
  if (csr.spec.signerName !== tls.signerName) return undefined;
  const types = conditionTypes(csr);
  const finished = (csr.status?.certificate ?? '') !== '' || types.has('Denied') || types.has('Failed');
  if (!finished) return undefined;
  const at = finishedAt(csr) ?? Date.parse(csr.metadata.creationTimestamp ?? '');
  return Number.isFinite(at) ? at + ttlMs : undefined;
}
