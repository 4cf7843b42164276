// Test support: an Ed25519 key pair and signed license files, made with node:crypto as a vendor would.
import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { canonicalLicense, type LicenseFields } from '../../src/license/license-document.js';

export interface LicenseSigner {
  /** The public key as license.public_key takes it: base64 of the raw 32 bytes. */
  publicKeyBase64: string;
  publicKeyPem: string;
  /** Writes a signed license document to `path`; `tamper` changes it after signing. */
  write(path: string, fields: LicenseFields, tamper?: (doc: Record<string, unknown>) => void): Promise<void>;
}

export function licenseSigner(): LicenseSigner {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const raw = (publicKey.export({ format: 'der', type: 'spki' }) as Buffer).subarray(-32);
  return {
    publicKeyBase64: raw.toString('base64'),
    publicKeyPem: publicKey.export({ format: 'pem', type: 'spki' }).toString(),
    write: async (path, fields, tamper) => {
      const doc: Record<string, unknown> = { ...fields, signature: signLicense(fields, privateKey) };
      tamper?.(doc);
      await writeFile(path, JSON.stringify(doc, null, 2));
    },
  };
}

export function signLicense(fields: LicenseFields, privateKey: KeyObject): string {
  return sign(null, canonicalLicense(fields), privateKey).toString('base64');
}

export const inDays = (days: number): string => new Date(Date.now() + days * 86_400_000).toISOString();
