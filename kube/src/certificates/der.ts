// The DER and PEM plumbing of the certificate code: PEM blocks, names with one common name, ECDSA P-256 signatures.
import { createPublicKey, sign, verify, type KeyObject } from 'node:crypto';
import { AsnConvert } from '@peculiar/asn1-schema';
import { AlgorithmIdentifier, AttributeTypeAndValue, AttributeValue, Name, RelativeDistinguishedName, SubjectPublicKeyInfo } from '@peculiar/asn1-x509';

const ID_COMMON_NAME = '2.5.4.3';
/** ecdsa-with-SHA256 (RFC 5758): the one signature algorithm Vigil writes. */
export const ID_ECDSA_WITH_SHA256 = '1.2.840.10045.4.3.2';
const ID_EC_PUBLIC_KEY = '1.2.840.10045.2.1';

export function toPem(label: string, der: ArrayBuffer | Uint8Array): string {
  const b64 = Buffer.from(der instanceof Uint8Array ? der : new Uint8Array(der)).toString('base64');
  return `-----BEGIN ${label}-----\n${b64.replace(/.{1,64}/g, '$&\n')}-----END ${label}-----\n`;
}

/** The DER of every PEM block of `label` in `text`, in order. */
export function pemBlocks(text: string, label: string): Buffer[] {
  const re = new RegExp(`-----BEGIN ${label}-----([A-Za-z0-9+/=\\s]*?)-----END ${label}-----`, 'g');
  return [...text.matchAll(re)].map((m) => Buffer.from((m[1] ?? '').replace(/\s+/g, ''), 'base64'));
}

export function commonNameOnly(cn: string): Name {
  return new Name([new RelativeDistinguishedName([new AttributeTypeAndValue({ type: ID_COMMON_NAME, value: new AttributeValue({ utf8String: cn }) })])]);
}

/** The common name of a name, or '' when it has none. */
export function commonNameOf(name: Name): string {
  for (const rdn of name) for (const atv of rdn) if (atv.type === ID_COMMON_NAME) return atv.value.toString();
  return '';
}

export function spkiOf(key: KeyObject): SubjectPublicKeyInfo {
  const der = (key.type === 'private' ? createPublicKey(key) : key).export({ type: 'spki', format: 'der' });
  return AsnConvert.parse(der, SubjectPublicKeyInfo);
}

export function publicKeyOf(spki: SubjectPublicKeyInfo): KeyObject {
  return createPublicKey({ key: Buffer.from(AsnConvert.serialize(spki)), format: 'der', type: 'spki' });
}

/** The named curve prime256v1 as the DER of its OBJECT IDENTIFIER (an EC key's algorithm parameters). */
const PRIME256V1_DER = Buffer.from('06082a8648ce3d030107', 'hex');

/** "ECDSA P-256", "RSA", … for messages; `p256` says whether it is the one key type Vigil's nodes use. */
export function keyTypeOf(spki: SubjectPublicKeyInfo): { name: string; p256: boolean } {
  const alg = spki.algorithm.algorithm;
  if (alg === ID_EC_PUBLIC_KEY) {
    const params = spki.algorithm.parameters;
    const p256 = params !== undefined && params !== null && Buffer.from(params).equals(PRIME256V1_DER);
    return { name: p256 ? 'ECDSA P-256' : 'ECDSA on another curve', p256 };
  }
  if (alg === '1.2.840.113549.1.1.1') return { name: 'RSA', p256: false };
  if (alg === '1.3.101.112') return { name: 'Ed25519', p256: false };
  return { name: `key algorithm ${alg}`, p256: false };
}

export const ECDSA_SHA256 = (): AlgorithmIdentifier => new AlgorithmIdentifier({ algorithm: ID_ECDSA_WITH_SHA256 });

/** An ECDSA signature over `data` in the DER form X.509 carries. */
export function signDer(data: ArrayBuffer, key: KeyObject): ArrayBuffer {
  const sig = sign('sha256', Buffer.from(data), { key, dsaEncoding: 'der' });
  return sig.buffer.slice(sig.byteOffset, sig.byteOffset + sig.byteLength) as ArrayBuffer;
}

export function verifyDer(data: ArrayBuffer, signature: ArrayBuffer, key: KeyObject): boolean {
  try {
    return verify('sha256', Buffer.from(data), { key, dsaEncoding: 'der' }, Buffer.from(signature));
  } catch {
    return false;
  }
}
