// `auth.tokens_file`: a YAML list of API tokens ({name, role, sha256}), as a mounted Secret holds it.
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { formatIssues } from './load.js';
import { tokenSchema } from './schema.js';

export type TokenEntry = z.infer<typeof tokenSchema>;

const tokensFileSchema = z.array(tokenSchema);

/** Throws an Error whose message names the entry and the problem; never echoes a value. */
export function parseTokensFile(text: string): TokenEntry[] {
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch {
    throw new Error('not valid YAML');
  }
  // A mapping with a `tokens` key is accepted too, so the same snippet works in config.yaml and in the file.
  const list = typeof doc === 'object' && doc !== null && !Array.isArray(doc) && 'tokens' in doc ? (doc as { tokens: unknown }).tokens : doc;
  const parsed = tokensFileSchema.safeParse(list ?? []);
  if (!parsed.success) throw new Error(formatIssues(parsed.error.issues).replace(/\n/g, '; '));
  return parsed.data;
}
