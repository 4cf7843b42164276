// Renders the CRDs to the exact YAML text committed under helm/vigil/crds/ (the generator writes it, the drift test compares it).
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import { definitionFiles } from './crd.js';

export const GENERATE_COMMAND = 'npm run generate -w crds';

/** helm/vigil/crds/ of this checkout (the compiled file lives in crds/dist/src/). */
export const CRD_DIR = fileURLToPath(new URL('../../../helm/vigil/crds/', import.meta.url));

/** YAML 1.1 quoting: kubectl and helm read YAML 1.1, where a bare `off` would be the boolean false. */
export function renderDefinitions(): Array<{ file: string; text: string }> {
  return definitionFiles().map(({ file, crd }) => ({
    file,
    text: `# Generated from crds/src by \`${GENERATE_COMMAND}\`; do not edit.\n${stringify(crd, { lineWidth: 0, version: '1.1' })}`,
  }));
}
