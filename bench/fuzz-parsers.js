#!/usr/bin/env node
// The long fuzz run of the camera-facing parsers (the same properties `npm test` runs a few hundred times each).
//
//   npm run build && node bench/fuzz-parsers.js [--runs 200000] [--seed N] [--only SUBSTRING] [--size medium]
//
// --size is fast-check's baseSize for generated lists and byte strings: xsmall/small (what npm test uses), medium (the
// default here: longer packet runs and messages), large.
//
// stdout: one JSON line per parser ({"fuzz": name, "runs", "seconds", "ok", "seed", ...}); a failure prints fast-check's
// counterexample (replayable with --seed and its path) and exits 1.
import fc from 'fast-check';

function option(name, fallback) {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 && process.argv[at + 1] !== undefined ? process.argv[at + 1] : fallback;
}

const runs = Number(option('runs', '200000'));
const seed = option('seed', undefined);
const only = option('only', '');
fc.configureGlobal({ baseSize: option('size', 'medium') });
if (!Number.isInteger(runs) || runs < 1) {
  process.stderr.write('usage: node bench/fuzz-parsers.js [--runs N] [--seed N] [--only SUBSTRING] [--size xsmall|small|medium|large]\n');
  process.exit(2);
}

const { FUZZ_TARGETS } = await import('../recorder/dist/test/fuzz/fuzz-targets.js');
let failed = false;
for (const target of FUZZ_TARGETS.filter((t) => t.name.toLowerCase().includes(only.toLowerCase()))) {
  const started = process.hrtime.bigint();
  const result = await fc.check(target.property(), { numRuns: runs, ...(seed === undefined ? {} : { seed: Number(seed) }) });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const line = { fuzz: target.name, runs: result.numRuns, seconds: Math.round(seconds * 10) / 10, ok: !result.failed, seed: result.seed };
  if (result.failed) {
    failed = true;
    Object.assign(line, { path: result.counterexamplePath, error: String(result.errorInstance ?? result.error).slice(0, 2000), counterexample: fc.stringify(result.counterexample).slice(0, 4000) });
  }
  process.stdout.write(`${JSON.stringify(line)}\n`);
}
process.exit(failed ? 1 : 0);
