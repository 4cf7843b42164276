// The throw-away serving certificates: valid chains for every host, and DER that strict parsers (Go's) accept every time.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { createServingCertificates } from '../../../src/kube/emulator/tls-certificates.js';

test('every generated CA and server certificate parse, chain, name their hosts and have minimally encoded serials', () => {
  for (let i = 0; i < 300; i++) {
    const c = createServingCertificates(['127.0.0.1', '::1', 'localhost']);
    const ca = new X509Certificate(c.caPem);
    const leaf = new X509Certificate(c.certPem);
    assert.ok(ca.ca);
    assert.ok(leaf.verify(ca.publicKey));
    assert.equal(leaf.checkIP('127.0.0.1'), '127.0.0.1');
    assert.equal(leaf.checkIP('::1'), '::1');
    assert.equal(leaf.checkHost('localhost'), 'localhost');
    // A leading 00 byte (or a negative number) is what Go rejects as "x509: malformed serial number".
    for (const serial of [ca.serialNumber, leaf.serialNumber]) assert.match(serial, /^(?!00)[0-7][0-9A-F]{31}$/);
  }
});
