// The license document: its fields, its canonical (signed) form, and the Ed25519 signature check.
import { createPublicKey, verify, type KeyObject } from 'node:crypto';
import { z } from 'zod';

export const licenseSchema = z
  .object({
    customer: z.string().min(1),
    /** ISO 8601 instant after which the license is expired, e.g. "2027-12-31T23:59:59Z". */
    not_after: z.string().refine((s) => !Number.isNaN(Date.parse(s)), { message: 'must be an ISO 8601 date-time' }),
    max_cameras: z.number().int().min(0),
    /** Base64 Ed25519 signature over canonicalLicense(the other fields). */
    signature: z.string().regex(/^[A-Za-z0-9+/]+={0,2}$/, { message: 'must be base64' }),
  })
  .strict();

export type LicenseDocument = z.infer<typeof licenseSchema>;
export type LicenseFields = Omit<LicenseDocument, 'signature'>;

/**
 * The bytes that are signed: the fields other than `signature` as JSON with keys sorted
 * by code point and no whitespace, UTF-8 encoded. {"customer":"…","max_cameras":16,"not_after":"…"}
 */
export function canonicalLicense(fields: LicenseFields): Buffer {
  const record = fields as unknown as Record<string, unknown>;
  const sorted = Object.keys(record)
    .filter((k) => k !== 'signature')
    .sort()
    .map((k) => `${JSON.stringify(k)}:${JSON.stringify(record[k])}`);
  return Buffer.from(`{${sorted.join(',')}}`, 'utf8');
}

/** Raw Ed25519 keys are 32 bytes; with the fixed SPKI prefix they become a DER public key. */
const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

/** `license.public_key`: a PEM "PUBLIC KEY" block, or the base64 of the raw 32-byte Ed25519 key. Throws when it is neither. */
export function parsePublicKey(text: string): KeyObject {
  const trimmed = text.trim();
  const key = trimmed.startsWith('-----BEGIN')
    ? createPublicKey(trimmed)
    : (() => {
        const raw = Buffer.from(trimmed, 'base64');
        if (raw.length !== 32 || raw.toString('base64') !== trimmed) throw new Error('is neither a PEM public key nor the base64 of a 32-byte Ed25519 key');
        return createPublicKey({ key: Buffer.concat([ED25519_SPKI_PREFIX, raw]), format: 'der', type: 'spki' });
      })();
  if (key.asymmetricKeyType !== 'ed25519') throw new Error(`is a ${key.asymmetricKeyType ?? 'unknown'} key, not Ed25519`);
  return key;
}

export function signatureMatches(doc: LicenseDocument, key: KeyObject): boolean {
  const { signature, ...fields } = doc;
  return verify(null, canonicalLicense(fields), key, Buffer.from(signature, 'base64'));
}
