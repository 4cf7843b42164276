// PKCS #10 certificate signing requests: the one a recorder writes for its key and names, and what a reader (the
// operator deciding on approval) finds in one — names of every kind, the key type, whether the signature holds.
import type { KeyObject } from 'node:crypto';
import { Attributes, CertificationRequest, CertificationRequestInfo } from '@peculiar/asn1-csr';
import { AsnConvert, OctetString } from '@peculiar/asn1-schema';
import { Attribute as CsrAttribute, Extension, Extensions, GeneralName, id_ce_subjectAltName, SubjectAlternativeName } from '@peculiar/asn1-x509';
import { commonNameOf, commonNameOnly, ECDSA_SHA256, ID_ECDSA_WITH_SHA256, keyTypeOf, pemBlocks, publicKeyOf, signDer, spkiOf, toPem, verifyDer } from './der.js';

/** PKCS #9 extensionRequest: the extensions a request asks the certificate to carry. */
const ID_EXTENSION_REQUEST = '1.2.840.113549.1.9.14';
export const CSR_PEM_LABEL = 'CERTIFICATE REQUEST';

/** A request for `dnsNames` (the first is also the subject's common name), signed with `key` (ECDSA P-256). */
export function createSigningRequest(key: KeyObject, dnsNames: readonly string[]): string {
  const first = dnsNames[0];
  if (first === undefined) throw new Error('a certificate request needs at least one DNS name');
  const san = new SubjectAlternativeName(dnsNames.map((dNSName) => new GeneralName({ dNSName })));
  const extensions = new Extensions([new Extension({ extnID: id_ce_subjectAltName, critical: false, extnValue: new OctetString(AsnConvert.serialize(san)) })]);
  const info = new CertificationRequestInfo({
    version: 0,
    subject: commonNameOnly(first),
    subjectPKInfo: spkiOf(key),
    attributes: new Attributes([new CsrAttribute({ type: ID_EXTENSION_REQUEST, values: [AsnConvert.serialize(extensions)] })]),
  });
  const csr = new CertificationRequest({ certificationRequestInfo: info, signatureAlgorithm: ECDSA_SHA256(), signature: signDer(AsnConvert.serialize(info), key) });
  return toPem(CSR_PEM_LABEL, AsnConvert.serialize(csr));
}

/** What a request asks for. */
export interface SigningRequestContent {
  commonName: string;
  dnsNames: string[];
  /** Names of other kinds (IP addresses, e-mail addresses, URIs, …), as "IP:10.0.0.1", "email:a@b", "URI:…". */
  otherNames: string[];
  keyType: string;
  /** ECDSA P-256: the one key type a node's request may have. */
  p256: boolean;
  /** The request is signed by the key it carries (proof of possession), with ECDSA and SHA-256. */
  signatureValid: boolean;
  /** The public key as SPKI DER, for the certificate. */
  publicKeyDer: Buffer;
}

export class SigningRequestError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SigningRequestError';
  }
}

function describeName(n: GeneralName): string {
  if (n.iPAddress !== undefined) return `IP:${n.iPAddress}`;
  if (n.rfc822Name !== undefined) return `email:${n.rfc822Name}`;
  if (n.uniformResourceIdentifier !== undefined) return `URI:${n.uniformResourceIdentifier}`;
  if (n.directoryName !== undefined) return `DirName:${commonNameOf(n.directoryName)}`;
  if (n.registeredID !== undefined) return `RID:${n.registeredID}`;
  return 'othername';
}

/** Reads the first CERTIFICATE REQUEST block of `pem`; throws SigningRequestError when there is none or it does not parse. */
export function readSigningRequest(pem: string): SigningRequestContent {
  const der = pemBlocks(pem, CSR_PEM_LABEL)[0];
  if (der === undefined) throw new SigningRequestError('no PEM block of type CERTIFICATE REQUEST');
  let csr: CertificationRequest;
  try {
    csr = AsnConvert.parse(der, CertificationRequest);
  } catch (err) {
    throw new SigningRequestError(`the certificate request does not parse: ${(err as Error).message}`);
  }
  const info = csr.certificationRequestInfo;
  const dnsNames: string[] = [];
  const otherNames: string[] = [];
  // Only the subject alternative names are read: a signer issues its own extensions, never the ones asked for.
  for (const attr of info.attributes ?? []) {
    if (attr.type !== ID_EXTENSION_REQUEST) continue;
    for (const value of attr.values) {
      let extensions: Extensions;
      try {
        extensions = AsnConvert.parse(value, Extensions);
      } catch (err) {
        throw new SigningRequestError(`the request's extensionRequest attribute does not parse: ${(err as Error).message}`);
      }
      for (const ext of extensions) {
        if (ext.extnID !== id_ce_subjectAltName) continue;
        let names: SubjectAlternativeName;
        try {
          names = AsnConvert.parse(ext.extnValue.buffer, SubjectAlternativeName);
        } catch (err) {
          throw new SigningRequestError(`the request's subjectAltName extension does not parse: ${(err as Error).message}`);
        }
        for (const name of names) {
          if (name.dNSName !== undefined) dnsNames.push(name.dNSName);
          else otherNames.push(describeName(name));
        }
      }
    }
  }
  const keyType = keyTypeOf(info.subjectPKInfo);
  const tbs = csr.certificationRequestInfoRaw ?? AsnConvert.serialize(info);
  let signatureValid = false;
  if (csr.signatureAlgorithm.algorithm === ID_ECDSA_WITH_SHA256 && keyType.p256) {
    try {
      signatureValid = verifyDer(tbs, csr.signature, publicKeyOf(info.subjectPKInfo));
    } catch {
      signatureValid = false; // a key that does not parse signs nothing
    }
  }
  return {
    commonName: commonNameOf(info.subject),
    dnsNames,
    otherNames,
    keyType: keyType.name,
    p256: keyType.p256,
    signatureValid,
    publicKeyDer: Buffer.from(AsnConvert.serialize(info.subjectPKInfo)),
  };
}
