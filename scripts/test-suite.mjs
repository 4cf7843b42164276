// Runs the compiled tests of one or more workspaces as one node:test run: only `*.test.js` files (support modules in
// test folders are not test files), the slowest first (scripts/slow-tests.txt), at most `--concurrency` files at once.
// One queue over every workspace leaves no workspace's last slow file running alone while the cores wait for it.
// usage: node scripts/test-suite.mjs [--concurrency N] [--timeout MS] [workspace ...]   (no workspace: all of them)
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { run } from 'node:test';
import { spec } from 'node:test/reporters';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

function parseArgs(argv) {
  const o = { concurrency: 3, timeout: 600_000, workspaces: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--concurrency' || a === '--timeout') {
      const n = Number(argv[++i]);
      if (!Number.isInteger(n) || n <= 0) throw new Error(`${a} needs a positive whole number`);
      o[a.slice(2)] = n;
    } else if (a.startsWith('--')) {
      throw new Error(`unknown option ${a}`);
    } else {
      o.workspaces.push(a);
    }
  }
  if (o.workspaces.length === 0) o.workspaces = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).workspaces;
  return o;
}

/** Every `*.test.js` under `dir`, as absolute paths. */
function testFiles(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.test.js'))
    .map((e) => join(e.parentPath ?? e.path, e.name));
}

/** scripts/slow-tests.txt: `<seconds> <workspace>/test/<path>.test.ts` lines; the compiled file's path → its seconds. */
function knownSeconds() {
  const seconds = new Map();
  for (const line of readFileSync(join(ROOT, 'scripts/slow-tests.txt'), 'utf8').split('\n')) {
    const m = /^\s*(\d+(?:\.\d+)?)\s+(\S+)\/test\/(\S+)\.test\.ts\s*$/.exec(line);
    if (m) seconds.set(join(ROOT, m[2], 'dist/test', `${m[3]}.test.js`), Number(m[1]));
  }
  return seconds;
}

const o = parseArgs(process.argv.slice(2));
const known = knownSeconds();
const files = o.workspaces.flatMap((ws) => testFiles(join(ROOT, ws, 'dist/test'))).sort();
// Longest first (the list's files by their seconds, the rest after them in path order): the long files overlap the
// short ones, and the run ends with short files, not with one long file on one core.
files.sort((a, b) => (known.get(b) ?? 0) - (known.get(a) ?? 0));
if (files.length === 0) {
  console.error(`test-suite: no *.test.js under ${o.workspaces.map((ws) => `${ws}/dist/test`).join(', ')}: run npm run build first`);
  process.exit(1);
}

// Seconds per file (its top-level tests added up, as scripts/slow-tests.txt counts them), for keeping that list true.
const seconds = new Map();
const started = Date.now();
const stream = run({ files, concurrency: o.concurrency, timeout: o.timeout, forceExit: true });
stream.on('test:fail', () => {
  process.exitCode = 1;
});
for (const event of ['test:pass', 'test:fail']) {
  stream.on(event, (data) => {
    if (data.file === undefined || data.nesting !== 0) return;
    seconds.set(data.file, (seconds.get(data.file) ?? 0) + (data.details?.duration_ms ?? 0) / 1000);
  });
}
const report = stream.compose(spec);
report.pipe(process.stdout);
report.on('end', () => {
  const slowest = [...seconds].map(([f, s]) => [relative(ROOT, f), s]).sort((a, b) => b[1] - a[1]).slice(0, 12);
  console.log(`test-suite: ${files.length} files of ${o.workspaces.join(', ')} in ${((Date.now() - started) / 1000).toFixed(0)} s, ${o.concurrency} at once; the slowest (s, their tests added up):`);
  for (const [f, s] of slowest) console.log(`  ${s.toFixed(0).padStart(4)} ${f}`);
});
