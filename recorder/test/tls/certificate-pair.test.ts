// A certificate pair is checked the way a client will check it: chain order, the key that matches, a readable key.
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { ok, runCommand } from '@vigil/testing/command';
import { createTestCa } from '@vigil/testing/test-ca';
import { tempDir } from '@vigil/testing/temp-dir';
import { CertificateError, readCertificatePair } from '../../src/tls/certificate-pair.js';

test('a full chain (server certificate, then its intermediate) and its key are read with serial, end and chain length', async (t) => {
  const ca = await createTestCa(await tempDir(t), { intermediate: true });
  const issued = await ca.issue('node', { days: 30 });
  const pair = await readCertificatePair({ certFile: issued.certFile, keyFile: issued.keyFile });
  assert.equal(pair.serial, issued.serial);
  assert.equal(pair.chainLength, 2);
  assert.equal(pair.notAfter.getTime(), issued.notAfter.getTime());
  assert.ok(pair.notAfter.getTime() - Date.now() > 29 * 86400_000);
});

test('pairs that cannot be served are refused with the key and file to fix', async (t) => {
  const dir = await tempDir(t);
  const ca = await createTestCa(join(dir, 'ca'), { intermediate: true });
  const a = await ca.issue('a');
  const b = await ca.issue('b');
  const refused = async (certFile: string, keyFile: string, expected: RegExp): Promise<void> => {
    await assert.rejects(readCertificatePair({ certFile, keyFile }), (err: Error) => {
      assert.ok(err instanceof CertificateError, `a CertificateError, not ${err.name}: ${err.message}`);
      assert.match(err.message, expected);
      assert.ok(!err.message.includes('PRIVATE KEY'), 'never the key itself');
      return true;
    });
  };

  await refused(a.certFile, b.keyFile, new RegExp(`tls\\.key_file: ${b.keyFile.replace(/\./g, '\\.')} is not the key of the certificate`));
  await refused(join(dir, 'missing.crt'), a.keyFile, /tls\.cert_file: .*missing\.crt cannot be read \(ENOENT\)/);
  await refused(a.certFile, join(dir, 'missing.key'), /tls\.key_file: .*missing\.key cannot be read \(ENOENT\)/);

  const garbage = join(dir, 'garbage.crt');
  await writeFile(garbage, 'not a certificate\n');
  await refused(garbage, a.keyFile, /tls\.cert_file: .*garbage\.crt holds no PEM certificate/);
  const broken = join(dir, 'broken.crt');
  await writeFile(broken, '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n');
  await refused(broken, a.keyFile, /certificate 1 cannot be parsed/);

  // The intermediate first: a client could not build the chain.
  const [leaf, intermediate] = a.certPem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----\n/g) ?? [];
  const reversed = join(dir, 'reversed.crt');
  await writeFile(reversed, `${intermediate}${leaf}`);
  await refused(reversed, a.keyFile, /certificate 2 did not issue certificate 1; the file must hold the node's certificate first/);

  // The right issuer name, the wrong issuer: an intermediate of the same name from another CA did not sign it.
  const twin = await createTestCa(join(dir, 'twin-ca'), { intermediate: true });
  const twinIntermediate = (await twin.issue('x')).certPem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----\n/g)?.[1];
  const forged = join(dir, 'forged.crt');
  await writeFile(forged, `${leaf}${twinIntermediate}`);
  await refused(forged, a.keyFile, /certificate 2 did not issue certificate 1/);

  const keyAsCert = join(dir, 'key-as-cert.crt');
  await writeFile(keyAsCert, await readFile(a.keyFile));
  await refused(keyAsCert, a.keyFile, /holds no PEM certificate/);
  await refused(a.certFile, a.certFile, /tls\.key_file: .* holds no usable PEM private key/);

  const encrypted = join(dir, 'encrypted.key');
  ok(await runCommand('openssl', ['pkey', '-in', a.keyFile, '-aes256', '-passout', 'pass:secret', '-out', encrypted]), 'openssl pkey -aes256');
  await refused(a.certFile, encrypted, /tls\.key_file: .*encrypted\.key: the key is encrypted/);
});
