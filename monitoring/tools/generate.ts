// `npm run generate -w monitoring`: writes the alerts and the dashboard into helm/vigil/files/ and packaging/monitoring/.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { renderOutputs, REPO_ROOT } from './render.js';

const rendered = renderOutputs();
for (const { path, text } of rendered) {
  mkdirSync(dirname(join(REPO_ROOT, path)), { recursive: true });
  writeFileSync(join(REPO_ROOT, path), text);
}
process.stdout.write(`wrote ${rendered.map((r) => r.path).join(', ')}\n`);
