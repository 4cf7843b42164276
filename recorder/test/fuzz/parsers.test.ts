// Fuzzed parsers: a few hundred generated inputs per parser in every test run (bench/fuzz-parsers.js runs many more).
import { test } from 'node:test';
import fc from 'fast-check';
import { FUZZ_TARGETS } from './fuzz-targets.js';

const RUNS = Number(process.env['VIGIL_FUZZ_RUNS'] ?? 300);

for (const target of FUZZ_TARGETS) {
  test(`${target.name}: malformed input ends in the parser's own error, never a crash, a hang or unbounded memory`, () => {
    fc.assert(target.property(), { numRuns: RUNS });
  });
}
