// Reads a license file and judges it: absent, valid, or invalid with the reason (never throws).
import { readFile } from 'node:fs/promises';
import { licenseSchema, parsePublicKey, signatureMatches } from './license-document.js';

export type LicenseVerdict =
  | { valid: true; state: 'valid'; customer: string; not_after: string; max_cameras: number }
  | { valid: true; state: 'absent' }
  | { valid: false; state: 'missing' | 'unreadable' | 'malformed' | 'no_public_key' | 'bad_signature' | 'expired'; reason: string };

export interface LicenseSettings {
  file: string;
  /** `license.public_key`; undefined when not configured. */
  publicKey: string | undefined;
  /** `license.required`: a missing file is then invalid rather than fine. */
  required: boolean;
}

export async function judgeLicense(settings: LicenseSettings, now: Date): Promise<LicenseVerdict> {
  let text: string;
  try {
    text = await readFile(settings.file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') {
      return settings.required ? { valid: false, state: 'missing', reason: `no license file at ${settings.file} and license.required is true` } : { valid: true, state: 'absent' };
    }
    return { valid: false, state: 'unreadable', reason: `${settings.file} cannot be read: ${code ?? String(err)}` };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { valid: false, state: 'malformed', reason: `${settings.file} is not JSON` };
  }
  const parsed = licenseSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { valid: false, state: 'malformed', reason: `${settings.file}: ${issue === undefined ? 'invalid' : `${issue.path.join('.') || 'document'} ${issue.message}`}` };
  }
  if (settings.publicKey === undefined) return { valid: false, state: 'no_public_key', reason: 'license.public_key is not set, so the license cannot be checked' };
  let matches: boolean;
  try {
    matches = signatureMatches(parsed.data, parsePublicKey(settings.publicKey));
  } catch (err) {
    return { valid: false, state: 'no_public_key', reason: `license.public_key ${err instanceof Error ? err.message : String(err)}` };
  }
  if (!matches) return { valid: false, state: 'bad_signature', reason: `${settings.file}: the signature does not match the content (tampered, or signed with another key)` };
  const { customer, not_after, max_cameras } = parsed.data;
  if (Date.parse(not_after) < now.getTime()) return { valid: false, state: 'expired', reason: `the license of ${customer} expired at ${not_after}` };
  return { valid: true, state: 'valid', customer, not_after, max_cameras };
}
