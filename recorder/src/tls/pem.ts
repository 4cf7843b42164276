// PEM certificates, the one place they are read: a file's CERTIFICATE blocks, parsed, and whether one certificate was
// issued (and signed) by another — for the served chain, the node certificate the cluster issues and the peers' CA bundle.
import { X509Certificate } from 'node:crypto';

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/** The CERTIFICATE blocks of a PEM text, in order (anything between them ignored). */
export function certificateBlocks(text: string): string[] {
  return text.match(PEM_CERTIFICATE) ?? [];
}

/** The certificates of a PEM text, in order; throws naming the block (1-based) that does not parse. */
export function parseCertificates(text: string): X509Certificate[] {
  return certificateBlocks(text).map((block, i) => {
    try {
      return new X509Certificate(block);
    } catch (err) {
      throw new Error(`certificate ${i + 1} cannot be parsed (${(err as Error).message})`);
    }
  });
}

/** Whether `issuer` issued `cert`: names it as issuer and its key verifies the signature. */
export function issuedBy(cert: X509Certificate, issuer: X509Certificate): boolean {
  return cert.checkIssued(issuer) && cert.verify(issuer.publicKey);
}

/** The DNS names of a certificate's subjectAltName. */
export function dnsNamesOf(cert: X509Certificate): string[] {
  return (cert.subjectAltName ?? '').split(/,\s*/).filter((n) => n.startsWith('DNS:')).map((n) => n.slice(4));
}
