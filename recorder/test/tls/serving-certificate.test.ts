// The served certificate follows its files: a replaced pair within a minute at the default interval, a bad pair never.
import assert from 'node:assert/strict';
import { copyFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { createTestCa, type IssuedCertificate, type TestCa } from '@vigil/testing/test-ca';
import { tempDir } from '@vigil/testing/temp-dir';
import { CERTIFICATE_CHECK_INTERVAL_MS, CERTIFICATE_SETTLE_MS, ServingCertificate } from '../../src/tls/serving-certificate.js';
import { ManualClock, testLogger } from '../support/fakes.js';

/**
 * Moves the manual clock a second at a time and waits, after each step, for the look it started to finish reading the
 * files (however long that takes on a loaded machine: a fixed real-time pause per simulated second was not enough).
 */
async function elapse(clock: ManualClock, ms: number, served: ServingCertificate): Promise<void> {
  for (let moved = 0; moved < ms; moved += 1000) {
    clock.advance(Math.min(1000, ms - moved));
    await served.idle();
  }
}

/** Puts a pair at the served paths the way cert-manager or certbot does: written beside, renamed over. */
async function replaceByRename(from: IssuedCertificate, certFile: string, keyFile: string): Promise<void> {
  await copyFile(from.certFile, `${certFile}.new`);
  await copyFile(from.keyFile, `${keyFile}.new`);
  await rename(`${certFile}.new`, certFile);
  await rename(`${keyFile}.new`, keyFile);
}

interface Served {
  dir: string;
  ca: TestCa;
  first: IssuedCertificate;
  certFile: string;
  keyFile: string;
  clock: ManualClock;
  served: ServingCertificate;
  logs: () => string;
  /** Serials announced to onChange listeners. */
  changes: string[];
}

/** A served pair at its own paths, looked at on a manual clock. */
async function setup(t: TestContext): Promise<Served> {
  const dir = await tempDir(t);
  const ca = await createTestCa(join(dir, 'ca'));
  const first = await ca.issue('first');
  const certFile = join(dir, 'served.crt');
  const keyFile = join(dir, 'served.key');
  await copyFile(first.certFile, certFile);
  await copyFile(first.keyFile, keyFile);
  const clock = new ManualClock(Date.now());
  const logged = testLogger();
  const served = await ServingCertificate.load({ certFile, keyFile, log: logged.log, clock });
  const changes: string[] = [];
  served.onChange((pair) => changes.push(pair.serial));
  served.start();
  t.after(() => served.stop());
  return { dir, ca, first, certFile, keyFile, clock, served, logs: logged.text, changes };
}

test('at the default interval a pair replaced by rename is served within a minute, and only once it has settled', async (t) => {
  assert.ok(CERTIFICATE_CHECK_INTERVAL_MS + CERTIFICATE_SETTLE_MS <= 60_000, 'the default interval keeps the promise of a minute');
  const { ca, first, certFile, keyFile, clock, served, logs, changes } = await setup(t);
  assert.equal(served.current.serial, first.serial);
  const second = await ca.issue('second');
  await replaceByRename(second, certFile, keyFile);
  await elapse(clock, 60_000, served);
  assert.equal(served.current.serial, second.serial);
  assert.deepEqual(changes, [second.serial], 'one change, announced once');
  assert.match(logs(), new RegExp(`"serial":"${second.serial}".*"previous_serial":"${first.serial}".*certificate renewed`));
  assert.doesNotMatch(logs(), /cannot be used/, 'a clean rename logs no error');
});

test('a file rewritten in place is served too', async (t) => {
  const { ca, certFile, keyFile, clock, served } = await setup(t);
  const third = await ca.issue('third');
  await writeFile(keyFile, third.keyPem);
  await writeFile(certFile, third.certPem);
  await elapse(clock, CERTIFICATE_CHECK_INTERVAL_MS * 2 + CERTIFICATE_SETTLE_MS, served);
  assert.equal(served.current.serial, third.serial);
});

test('a key that does not match, or an unparsable certificate, keeps the served pair and logs why once; the fix is served', async (t) => {
  const { ca, first, certFile, keyFile, clock, served, logs, changes } = await setup(t);
  const other = await ca.issue('other');
  await copyFile(other.keyFile, keyFile);
  await elapse(clock, 30_000, served);
  assert.equal(served.current.serial, first.serial, 'the old pair stays');
  const mismatch = logs().split('\n').filter((l) => l.includes('is not the key of the certificate'));
  assert.equal(mismatch.length, 1, `logged once, not at every look:\n${mismatch.join('\n')}`);
  assert.match(mismatch[0] ?? '', /"level":50.*still serving the previous certificate/);
  assert.match(mismatch[0] ?? '', new RegExp(`"serial":"${first.serial}"`));

  await writeFile(certFile, 'half a certificate -----BEGIN CERTIFICATE-----\nMIIB\n');
  await elapse(clock, 30_000, served);
  assert.equal(served.current.serial, first.serial);
  assert.match(logs(), /certificate 1 cannot be parsed|holds no PEM certificate/);

  await copyFile(other.certFile, certFile);
  await elapse(clock, 30_000, served);
  assert.equal(served.current.serial, other.serial, 'once the pair matches it is served');
  assert.deepEqual(changes, [other.serial]);
});

test('reload (SIGHUP) reads the files at once, without waiting for the interval; unchanged files change nothing', async (t) => {
  const { ca, certFile, keyFile, served, changes } = await setup(t);
  assert.equal(await served.reload(), false, 'nothing new');
  const next = await ca.issue('next');
  await replaceByRename(next, certFile, keyFile);
  assert.equal(await served.reload(), true);
  assert.equal(served.current.serial, next.serial);
  assert.deepEqual(changes, [next.serial]);
});

test('a missing file keeps the served pair', async (t) => {
  const { first, dir, keyFile, clock, served, logs } = await setup(t);
  await rename(keyFile, join(dir, 'moved-away.key'));
  await elapse(clock, 30_000, served);
  assert.equal(served.current.serial, first.serial);
  assert.match(logs(), /served\.key cannot be read \(ENOENT\)/);
});

test('an expired pair is served at start (logged: recording must not stop over it), but never taken as a renewal', async (t) => {
  const dir = await tempDir(t);
  const ca = await createTestCa(join(dir, 'ca'));
  const old = await ca.issue('old', { days: 90 });
  const newer = await ca.issue('newer', { days: 90 });
  // A hundred days on, both have ended.
  const clock = new ManualClock(Date.now() + 100 * 86_400_000);
  const logged = testLogger();
  const served = await ServingCertificate.load({ certFile: old.certFile, keyFile: old.keyFile, log: logged.log, clock });
  served.start();
  t.after(() => served.stop());
  assert.equal(served.current.serial, old.serial);
  assert.match(logged.text(), /"level":50.*the certificate of tls\.cert_file has expired/);
  await replaceByRename(newer, old.certFile, old.keyFile);
  await elapse(clock, 30_000, served);
  assert.equal(served.current.serial, old.serial);
  assert.match(logged.text(), /the new certificate expired at/);
});
