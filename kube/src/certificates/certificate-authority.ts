// A release's certificate authority: its self-signed CA certificate, and node certificates it issues for a request's
// public key and names (ECDSA P-256 and SHA-256 throughout).
import { createHash, randomBytes, X509Certificate, type KeyObject } from 'node:crypto';
import { AsnConvert, OctetString } from '@peculiar/asn1-schema';
import {
  AuthorityKeyIdentifier, BasicConstraints, Certificate, ExtendedKeyUsage, Extension, Extensions, GeneralName, id_ce_authorityKeyIdentifier, id_ce_basicConstraints,
  id_ce_extKeyUsage, id_ce_keyUsage, id_ce_subjectAltName, id_ce_subjectKeyIdentifier, id_kp_clientAuth, id_kp_serverAuth, KeyIdentifier, KeyUsage, KeyUsageFlags,
  Name, SubjectAlternativeName, SubjectKeyIdentifier, SubjectPublicKeyInfo, TBSCertificate, Validity, Version,
} from '@peculiar/asn1-x509';
import { commonNameOnly, ECDSA_SHA256, signDer, spkiOf, toPem } from './der.js';

export const CERTIFICATE_PEM_LABEL = 'CERTIFICATE';

/** A certificate's validity starts this much before its issue: a node whose clock is a little behind accepts it at once. */
export const BACKDATE_MS = 5 * 60_000;

function extension(id: string, critical: boolean, value: unknown): Extension {
  return new Extension({ extnID: id, critical, extnValue: new OctetString(AsnConvert.serialize(value)) });
}

/** A positive 16-byte serial (RFC 5280 asks for at most 20 octets, positive, unique per CA: random is the usual way). */
function serialNumber(): ArrayBuffer {
  const bytes = randomBytes(16);
  bytes[0] = ((bytes[0] as number) & 0x7f) | 0x01;
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + 16) as ArrayBuffer;
}

/** RFC 5280's key identifier method 1: SHA-1 of the subjectPublicKey bits. */
function keyIdentifier(spki: SubjectPublicKeyInfo): ArrayBuffer {
  const digest = createHash('sha1').update(Buffer.from(spki.subjectPublicKey)).digest();
  return digest.buffer.slice(digest.byteOffset, digest.byteOffset + digest.byteLength) as ArrayBuffer;
}

/** The to-be-signed part every certificate here shares: v3, a random serial, ECDSA with SHA-256. */
function certificateBody(fields: { issuer: Name; subject: Name; spki: SubjectPublicKeyInfo; notBefore: Date; notAfter: Date; extensions: Extension[] }): TBSCertificate {
  return new TBSCertificate({
    version: Version.v3,
    serialNumber: serialNumber(),
    signature: ECDSA_SHA256(),
    issuer: fields.issuer,
    subject: fields.subject,
    validity: new Validity({ notBefore: fields.notBefore, notAfter: fields.notAfter }),
    subjectPublicKeyInfo: fields.spki,
    extensions: new Extensions(fields.extensions),
  });
}

function signed(tbs: TBSCertificate, key: KeyObject): string {
  const cert = new Certificate({ tbsCertificate: tbs, signatureAlgorithm: ECDSA_SHA256(), signatureValue: signDer(AsnConvert.serialize(tbs), key) });
  return toPem(CERTIFICATE_PEM_LABEL, AsnConvert.serialize(cert));
}

/** A self-signed CA certificate for `key`, that may issue end-entity certificates only (path length 0). */
export function createCaCertificate(key: KeyObject, commonName: string, notBefore: Date, notAfter: Date): string {
  const spki = spkiOf(key);
  const name = commonNameOnly(commonName);
  const id = keyIdentifier(spki);
  const tbs = certificateBody({
    issuer: name,
    subject: name,
    spki,
    notBefore,
    notAfter,
    extensions: [
      extension(id_ce_basicConstraints, true, new BasicConstraints({ cA: true, pathLenConstraint: 0 })),
      extension(id_ce_keyUsage, true, new KeyUsage(KeyUsageFlags.keyCertSign | KeyUsageFlags.cRLSign)),
      extension(id_ce_subjectKeyIdentifier, false, new SubjectKeyIdentifier(id)),
    ],
  });
  return signed(tbs, key);
}

export interface IssueRequest {
  /** The node's public key (SPKI DER, from its request). */
  publicKeyDer: Buffer;
  dnsNames: readonly string[];
  /** serverAuth always; clientAuth when asked for (mutual TLS). */
  clientAuth: boolean;
  notBefore: Date;
  notAfter: Date;
}

/** A node certificate signed by the CA (`caCertPem`, `caKey`): not a CA, digital signature, the names as SANs. */
export function issueCertificate(req: IssueRequest, caCertPem: string, caKey: KeyObject): string {
  const ca = new X509Certificate(caCertPem);
  const caSpki = AsnConvert.parse(ca.publicKey.export({ type: 'spki', format: 'der' }), SubjectPublicKeyInfo);
  const caDer = AsnConvert.parse(ca.raw, Certificate);
  const spki = AsnConvert.parse(req.publicKeyDer, SubjectPublicKeyInfo);
  const san = new SubjectAlternativeName(req.dnsNames.map((dNSName) => new GeneralName({ dNSName })));
  const tbs = certificateBody({
    issuer: caDer.tbsCertificate.subject,
    subject: commonNameOnly(req.dnsNames[0] ?? ''),
    spki,
    notBefore: req.notBefore,
    notAfter: req.notAfter,
    extensions: [
      extension(id_ce_basicConstraints, true, new BasicConstraints({ cA: false })),
      extension(id_ce_keyUsage, true, new KeyUsage(KeyUsageFlags.digitalSignature)),
      extension(id_ce_extKeyUsage, false, new ExtendedKeyUsage(req.clientAuth ? [id_kp_serverAuth, id_kp_clientAuth] : [id_kp_serverAuth])),
      extension(id_ce_subjectAltName, false, san),
      extension(id_ce_subjectKeyIdentifier, false, new SubjectKeyIdentifier(keyIdentifier(spki))),
      extension(id_ce_authorityKeyIdentifier, false, new AuthorityKeyIdentifier({ keyIdentifier: new KeyIdentifier(keyIdentifier(caSpki)) })),
    ],
  });
  return signed(tbs, caKey);
}

/**
 * A self-signed server certificate for `key` (no CA, no client trusts it): what a node serves while it waits for its
 * issued certificate, so that its port speaks TLS for the kubelet's probes, which do not check certificates.
 */
export function createSelfSignedCertificate(key: KeyObject, dnsNames: readonly string[], notBefore: Date, notAfter: Date): string {
  const spki = spkiOf(key);
  const name = commonNameOnly(dnsNames[0] ?? 'vigil-recorder');
  const tbs = certificateBody({
    issuer: name,
    subject: name,
    spki,
    notBefore,
    notAfter,
    extensions: [
      extension(id_ce_basicConstraints, true, new BasicConstraints({ cA: false })),
      extension(id_ce_keyUsage, true, new KeyUsage(KeyUsageFlags.digitalSignature)),
      extension(id_ce_extKeyUsage, false, new ExtendedKeyUsage([id_kp_serverAuth])),
      extension(id_ce_subjectAltName, false, new SubjectAlternativeName(dnsNames.map((dNSName) => new GeneralName({ dNSName })))),
    ],
  });
  return signed(tbs, key);
}
