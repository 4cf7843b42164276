// The license file judged: valid (raw and PEM keys), absent, required, expired, tampered, unreadable; the CLI verdict.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { canonicalLicense } from '../../src/license/license-document.js';
import { judgeLicense } from '../../src/license/license-verdict.js';
import { inDays, licenseSigner } from '../support/license-signer.js';
import { RECORDER_BIN } from '../support/recorder-process.js';
import { tempDir } from '@vigil/testing/temp-dir';

const fields = { customer: 'Acme Parking', not_after: inDays(30), max_cameras: 16 };

test('the canonical form is sorted-key JSON without whitespace', () => {
  assert.equal(canonicalLicense({ not_after: '2027-01-01T00:00:00Z', max_cameras: 4, customer: 'Zoë "Z"' }).toString('utf8'), '{"customer":"Zoë \\"Z\\"","max_cameras":4,"not_after":"2027-01-01T00:00:00Z"}');
});

test('license verdicts', async (t) => {
  const dir = await tempDir(t);
  const signer = licenseSigner();
  const file = join(dir, 'vigil.lic');
  const now = new Date();
  const judge = (over: { file?: string; publicKey?: string | undefined; required?: boolean } = {}) =>
    judgeLicense({ file: over.file ?? file, publicKey: 'publicKey' in over ? over.publicKey : signer.publicKeyBase64, required: over.required ?? false }, now);

  assert.deepEqual(await judge(), { valid: true, state: 'absent' }, 'no file, not required: valid');
  assert.equal((await judge({ required: true })).state, 'missing');
  assert.equal((await judge({ required: true })).valid, false);

  await signer.write(file, fields);
  assert.deepEqual(await judge(), { valid: true, state: 'valid', ...fields });
  assert.equal((await judge({ publicKey: signer.publicKeyPem })).valid, true, 'a PEM key works too');
  assert.equal((await judge({ publicKey: licenseSigner().publicKeyBase64 })).state, 'bad_signature', 'another vendor key');
  assert.equal((await judge({ publicKey: undefined })).state, 'no_public_key');
  assert.equal((await judge({ publicKey: 'c2hvcnQ=' })).state, 'no_public_key', 'a key that is not 32 bytes');

  await signer.write(file, fields, (doc) => {
    doc['max_cameras'] = 1000;
  });
  assert.equal((await judge()).state, 'bad_signature', 'tampered');

  await signer.write(file, { ...fields, not_after: inDays(-1) });
  const expired = await judge();
  assert.equal(expired.valid, false);
  assert.equal(expired.state, 'expired');

  await writeFile(file, '{"customer": "x"');
  assert.equal((await judge()).state, 'malformed');
  await signer.write(file, fields, (doc) => {
    doc['extra'] = true;
  });
  assert.equal((await judge()).state, 'malformed', 'unknown fields are refused');

  // Unreadable: the path is a directory (read fails with EISDIR — chmod would not stop root).
  const asDir = join(dir, 'dir.lic');
  await mkdir(asDir);
  const unreadable = await judge({ file: asDir });
  assert.equal(unreadable.state, 'unreadable');
  assert.equal(unreadable.valid, false);
});

function runCli(args: string[]): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [RECORDER_BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    child.on('exit', (code) => resolve({ code, out }));
  });
}

test('vigil-recorder license verify prints the verdict and exits 0 or 1', async (t) => {
  const dir = await tempDir(t);
  const signer = licenseSigner();
  const good = join(dir, 'good.lic');
  const old = join(dir, 'old.lic');
  await signer.write(good, fields);
  await signer.write(old, { ...fields, not_after: inDays(-2) });

  const ok = await runCli(['license', 'verify', good, '--public-key', signer.publicKeyBase64]);
  assert.equal(ok.code, 0, ok.out);
  assert.match(ok.out, /^valid: .*Acme Parking.*max_cameras 16/);
  const bad = await runCli(['license', 'verify', old, '--public-key', signer.publicKeyBase64]);
  assert.equal(bad.code, 1, bad.out);
  assert.match(bad.out, /^invalid: expired: /);

  // Without --public-key the configuration's license.public_key is used.
  const config = join(dir, 'config.yaml');
  await writeFile(config, `license:\n  public_key: ${signer.publicKeyBase64}\n`);
  const fromConfig = await runCli(['license', 'verify', good, '--config', config]);
  assert.equal(fromConfig.code, 0, fromConfig.out);
});
