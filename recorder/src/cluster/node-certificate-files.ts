// Where a node keeps its key and certificate in cluster mode (cluster.dataDir/node_<name>/tls/), what a certificate
// there must be to be kept, and the provisional pair served until it has one.
import type { KeyObject, X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createSelfSignedCertificate } from '@vigil/kube';
import { dnsNamesOf, issuedBy, parseCertificates } from '../tls/pem.js';
import { NODE_TLS_DIR } from './assignment-cache.js';

export interface NodeCertificateFiles {
  certFile: string;
  keyFile: string;
}

export function nodeCertificateFiles(dataDir: string, nodeName: string): NodeCertificateFiles {
  const dir = join(dataDir, `node_${nodeName}`, NODE_TLS_DIR);
  return { certFile: join(dir, 'tls.crt'), keyFile: join(dir, 'tls.key') };
}

/** A self-signed pair for the node's key, valid a day: the port speaks TLS (probes) while the node waits. */
export function provisionalPair(key: KeyObject, dnsNames: readonly string[], now: number): { certPem: string; keyPem: string } {
  const certPem = createSelfSignedCertificate(key, dnsNames, new Date(now - 60_000), new Date(now + 86400_000));
  return { certPem, keyPem: key.export({ type: 'pkcs8', format: 'pem' }).toString() };
}


/**
 * What the node makes of a certificate: kept until renewAt; or not kept, with why. `servable` marks a certificate that
 * is for the key and the names, chains to the trusted CAs and has not ended, but whose renewal time has passed (a CA
 * near its end cuts it short): better served than nothing, yet asked again for (with backoff).
 */
export type CertificateAssessment = { keep: true; renewAt: number; notAfter: number } | { keep: false; why: string; servable: boolean; notAfter?: number };

export interface AssessInput {
  certPem: string | undefined;
  key: KeyObject;
  dnsNames: readonly string[];
  /** The CAs the node's certificate must chain to (cluster.tls.ca_file); undefined when the bundle cannot be read. */
  trusted: X509Certificate[] | undefined;
  now: number;
  /** The share of the lifetime after which it is renewed (two thirds). */
  renewAtFraction: number;
}

/**
 * The one acceptance rule for a node certificate: the requester applies it to what a signer issued before writing it and
 * to the file it holds, so a certificate it accepts is one it keeps (no new request the moment after).
 */
export function assessNodeCertificate(input: AssessInput): CertificateAssessment {
  const refused = (why: string): CertificateAssessment => ({ keep: false, why, servable: false });
  if (input.certPem === undefined) return refused('it has no certificate yet');
  let chain: X509Certificate[];
  try {
    chain = parseCertificates(input.certPem);
  } catch (err) {
    return refused(`the certificate cannot be parsed (${(err as Error).message})`);
  }
  const leaf = chain[0];
  if (leaf === undefined) return refused('the certificate file holds no certificate');
  if (!leaf.checkPrivateKey(input.key)) return refused('the certificate is not for its key');
  const have = dnsNamesOf(leaf);
  if (have.length !== input.dnsNames.length || input.dnsNames.some((n) => !have.includes(n))) {
    return refused(`the names it needs differ (the certificate names ${have.join(', ')}; it needs exactly ${input.dnsNames.join(', ')})`);
  }
  if (input.trusted !== undefined && !input.trusted.some((ca) => issuedBy(leaf, ca))) {
    return refused(`the certificate was not issued by a CA of cluster.tls.ca_file (issuer ${leaf.issuer.replace(/\n/g, ', ')})`);
  }
  const start = Date.parse(leaf.validFrom);
  const end = Date.parse(leaf.validTo);
  if (end <= input.now) return refused(`the certificate expired at ${new Date(end).toISOString()}`);
  const renewAt = start + (end - start) * input.renewAtFraction;
  if (renewAt <= input.now) {
    return { keep: false, servable: true, notAfter: end, why: `two thirds of the certificate's lifetime have passed (it ends at ${new Date(end).toISOString()})` };
  }
  return { keep: true, renewAt, notAfter: end };
}

export async function readOptional(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}
