// The one PEM reader (tls/pem.ts) the served chain, the node certificate and the peers' CA bundle share: blocks in
// order, the block that does not parse named, issuer checks that need the issuer's signature, DNS names.
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { test } from 'node:test';
import { createCaCertificate, createSigningRequest, issueCertificate, readSigningRequest } from '@vigil/kube';
import { certificateBlocks, dnsNamesOf, issuedBy, parseCertificates } from '../../src/tls/pem.js';

const DAY = 86400_000;

test('certificates in order, a broken block named by its place, issuedBy needs the issuer’s signature, DNS names read', () => {
  const key = () => generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
  const caKey = key();
  const caPem = createCaCertificate(caKey, 'CA', new Date(Date.now() - DAY), new Date(Date.now() + DAY));
  const impostorPem = createCaCertificate(key(), 'CA', new Date(Date.now() - DAY), new Date(Date.now() + DAY)); // same name, other key
  const request = readSigningRequest(createSigningRequest(key(), ['a.example', 'b.example']));
  const leafPem = issueCertificate({ publicKeyDer: request.publicKeyDer, dnsNames: request.dnsNames, clientAuth: false, notBefore: new Date(Date.now() - DAY), notAfter: new Date(Date.now() + DAY) }, caPem, caKey);

  const [leaf, ca] = parseCertificates(`junk before\n${leafPem}\nbetween\n${caPem}`);
  assert.ok(leaf !== undefined && ca !== undefined);
  assert.deepEqual(dnsNamesOf(leaf), ['a.example', 'b.example']);
  assert.equal(issuedBy(leaf, ca), true);
  const [impostor] = parseCertificates(impostorPem);
  assert.equal(issuedBy(leaf, impostor as NonNullable<typeof impostor>), false, 'a CA of the same name but another key did not issue it');
  assert.equal(certificateBlocks('no pem here').length, 0);
  const broken = `${caPem}-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n`;
  assert.throws(() => parseCertificates(broken), /certificate 2 cannot be parsed/);
});
