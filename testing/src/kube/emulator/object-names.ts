// generateName suffixes, as the real server picks them (the name rules themselves are in object-meta-validation.ts).
import { randomBytes } from 'node:crypto';

const SUFFIX_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

/** generateName + 5 random characters, as the real server picks them. */
export function generatedName(prefix: string): string {
  const bytes = randomBytes(5);
  let suffix = '';
  for (const b of bytes) suffix += SUFFIX_ALPHABET[b % SUFFIX_ALPHABET.length];
  return `${prefix}${suffix}`;
}
