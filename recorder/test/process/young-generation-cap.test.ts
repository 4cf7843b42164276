// The young-generation cap: V8's new space stops at 4 MiB under churn that grows it to 32 MiB without the cap.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { capYoungGeneration, YOUNG_GENERATION_CAP_BYTES } from '../../src/process/young-generation-cap.js';

const run = promisify(execFile);
const MODULE = fileURLToPath(new URL('../../src/process/young-generation-cap.js', import.meta.url));

/** A child that keeps one object in fifty alive for a while (what grows the young generation), then reports its size. */
function churn(cap: boolean): string {
  return `
    import { getHeapSpaceStatistics } from 'node:v8';
    const { capYoungGeneration } = await import(${JSON.stringify(MODULE)});
    const applied = ${cap} ? capYoungGeneration() : false;
    const keep = [];
    for (let round = 0; round < 300; round++) {
      for (let i = 0; i < 20000; i++) { const o = { a: i, b: [i, i + 1], c: 'x' + i }; if (i % 50 === 0) keep.push(o); }
      if (keep.length > 20000) keep.splice(0, 10000);
      await new Promise((resolve) => setImmediate(resolve));
    }
    const size = getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size;
    console.log(JSON.stringify({ applied, size }));`;
}

async function newSpaceAfterChurn(cap: boolean): Promise<{ applied: boolean; size: number }> {
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', churn(cap)], { env: { ...process.env, NODE_OPTIONS: '' } });
  return JSON.parse(stdout.trim()) as { applied: boolean; size: number };
}

test('young generation: capped at 4 MiB; the same churn without the cap grows it past that', { timeout: 60_000 }, async () => {
  const [capped, free] = await Promise.all([newSpaceAfterChurn(true), newSpaceAfterChurn(false)]);
  assert.equal(capped.applied, true);
  assert.ok(free.size > YOUNG_GENERATION_CAP_BYTES, `without the cap: ${free.size / 2 ** 20} MiB`);
  assert.ok(capped.size <= YOUNG_GENERATION_CAP_BYTES, `with the cap: ${capped.size / 2 ** 20} MiB`);
});

test('young generation: an operator who sized it with a flag of their own is left alone', () => {
  assert.equal(capYoungGeneration(['--max-semi-space-size=16'], ''), false);
  assert.equal(capYoungGeneration([], '--max-old-space-size=512 --semi-space-growth-factor=2'), false);
});
