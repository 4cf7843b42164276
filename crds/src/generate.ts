// `npm run generate -w crds`: writes the CRD YAML into helm/vigil/crds/ and removes files there it no longer generates.
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CRD_DIR, renderDefinitions } from './render.js';

const rendered = renderDefinitions();
mkdirSync(CRD_DIR, { recursive: true });
for (const { file, text } of rendered) writeFileSync(join(CRD_DIR, file), text);
const wanted = new Set(rendered.map((r) => r.file));
for (const file of readdirSync(CRD_DIR)) {
  if (file.endsWith('.yaml') && !wanted.has(file)) rmSync(join(CRD_DIR, file));
}
process.stdout.write(`wrote ${rendered.map((r) => r.file).join(', ')} to ${CRD_DIR}\n`);
