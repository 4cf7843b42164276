// Bundles the live-view page (recorder/web) into dist/web: index.html plus content-hashed assets.
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const recorder = dirname(dirname(fileURLToPath(import.meta.url)));
const out = join(recorder, 'dist', 'web');

await rm(out, { recursive: true, force: true });
await mkdir(join(out, 'assets'), { recursive: true });
const result = await build({
  entryPoints: { app: join(recorder, 'web', 'main.ts') },
  bundle: true,
  format: 'esm',
  target: ['chrome100', 'firefox100', 'safari15'],
  minify: true,
  sourcemap: 'linked',
  entryNames: '[name]-[hash]',
  outdir: join(out, 'assets'),
  metafile: true,
  logLevel: 'warning',
});
const app = Object.keys(result.metafile.outputs).find((f) => f.endsWith('.js'));
if (app === undefined) throw new Error('esbuild produced no script');
const html = await readFile(join(recorder, 'web', 'index.html'), 'utf8');
await writeFile(join(out, 'index.html'), html.replace('%APP_JS%', basename(app)));
