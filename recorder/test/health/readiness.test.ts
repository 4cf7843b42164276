// Readiness checks: a hung check fails at the deadline and is not probed twice; the recordings directory probe and its cache.
import assert from 'node:assert/strict';
import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { clusterStoreCheck } from '../../src/health/cluster-store-check.js';
import { ReadinessChecks, type CheckOutcome, type ReadinessCheck } from '../../src/health/readiness.js';
import { recordingsDirCheck } from '../../src/health/recordings-dir-check.js';
import { storageCheck } from '../../src/health/storage-check.js';
import { tempDir } from '@vigil/testing/temp-dir';

test('a check that has not answered by the deadline fails; the answer still comes in time, and the hung probe is joined', async () => {
  let pings = 0;
  let release: () => void = () => undefined;
  const hung = new Promise<void>((resolve) => {
    release = resolve;
  });
  const checks = new ReadinessChecks(
    [
      storageCheck(async () => {
        pings++;
        await hung;
      }),
      clusterStoreCheck(undefined),
    ],
    50,
  );
  for (let i = 0; i < 3; i++) {
    const started = performance.now();
    const report = await checks.evaluate();
    // Without the deadline this call would never return (the probe hangs); the bound only has to tell "at the
    // deadline" from "much later", with room for a loaded machine's event-loop delays.
    assert.ok(performance.now() - started < 1000, 'answers at the deadline');
    assert.deepEqual(report, { ready: false, failed: ['storage'], checks: { storage: { configured: true, reachable: false }, cluster_store: { configured: false } } });
  }
  assert.equal(pings, 1, 'one probe in flight, not one per request');
  release();
  await new Promise((r) => setTimeout(r, 10));
  assert.deepEqual((await checks.evaluate()).checks['storage'], { configured: true, reachable: true });
  assert.equal(pings, 2, 'a new probe once the old one answered');
});

test('storage: unconfigured passes, a failing ping fails; a throwing check counts as failed', async () => {
  const failing: ReadinessCheck = { name: 'boom', probe: (): Promise<CheckOutcome> => Promise.reject(new Error('x')), unanswered: () => ({ ok: false }) };
  assert.deepEqual(await new ReadinessChecks([storageCheck(undefined)]).evaluate(), { ready: true, failed: [], checks: { storage: { configured: false, reachable: false } } });
  const report = await new ReadinessChecks([storageCheck(() => Promise.reject(new Error('ECONNREFUSED'))), failing]).evaluate();
  assert.equal(report.ready, false);
  assert.deepEqual(report.failed, ['storage', 'boom']);
  assert.deepEqual(report.checks['boom'], { ok: false });
});

/** The probe's answer once the write it started has answered (the grace may return the previous result first). */
async function settled(check: ReadinessCheck): Promise<CheckOutcome> {
  let outcome = await check.probe();
  for (let i = 0; i < 100 && outcome.ok; i++) {
    await new Promise((r) => setTimeout(r, 20));
    outcome = await check.probe();
  }
  return outcome;
}

test('recordings_dir: a real write under record_path; a path that is no longer a directory fails; results are kept for the interval', async (t) => {
  const dir = await tempDir(t);
  const recordPath = join(dir, 'recordings');
  await mkdir(recordPath);
  let now = 1_000_000;
  const failures: string[] = [];
  const check = recordingsDirCheck({ recordPath, now: () => now, onFailure: (r) => failures.push(r) });
  assert.deepEqual(await check.probe(), { ok: true, detail: { path: recordPath, writable: true } });
  assert.deepEqual(await readdir(recordPath), [], 'the probe file is deleted');

  // Tests run as root, for whom chmod changes nothing: replace the directory by a file, as when a disk
  // is unmounted and something else sits at the path. Writing under it fails with ENOTDIR.
  await rm(recordPath, { recursive: true });
  await writeFile(recordPath, 'not a directory');
  now += 4_999;
  assert.equal((await check.probe()).ok, true, 'the last result is reused within 5 s');
  now += 1;
  // A write that has not answered within a short grace leaves the last result standing (a slow fsync on a busy disk must
  // not fail readiness), so on a loaded machine the first probe past the interval may still say writable.
  assert.deepEqual(await settled(check), { ok: false, detail: { path: recordPath, writable: false } });
  assert.match(failures[0] ?? '', /ENOTDIR/);

  // A vanished directory (ENOENT) fails too, and is not recreated by the probe.
  await rm(recordPath);
  now += 5_000;
  assert.equal((await settled(check)).ok, false);
  assert.match(failures[1] ?? '', /ENOENT/);
  await assert.rejects(readdir(recordPath));
});
