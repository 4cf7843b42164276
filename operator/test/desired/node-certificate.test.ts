// The decisions on a node's CertificateSigningRequest: signing decides again who may have the names, a malformed request
// is denied with a reason (not thrown), and a finished request is deleted an hour after it finished, not after creation.
import assert from 'node:assert/strict';
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { test } from 'node:test';
import { createCaCertificate, createSigningRequest, issueCertificate, readSigningRequest, type CertificateSigningRequest } from '@vigil/kube';
import { SETTINGS_YAML } from '@vigil/testing/kube/test-cluster';
import { parse } from 'yaml';
import { parseSettings } from '../../src/config/settings.js';
import { decideCertificateRequest, decideSigning, finishedRequestExpiresAt, nodeCertificateNames } from '../../src/desired/node-certificate.js';
import { recorderNode } from '../support/objects.js';

const NAMESPACE = 'vigil';
const settings = parseSettings(parse(`${SETTINGS_YAML}tls:\n  certificateLifetimeSeconds: 86400\n`));
const tls = settings.tls ?? assert.fail('tls settings');
const nodes = [recorderNode('node-a'), recorderNode('node-b')];
const HOUR = 3600_000;
const now = Date.parse('2026-06-01T12:00:00Z');
const iso = (ms: number): string => new Date(ms).toISOString();

function p256(): KeyObject {
  return generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
}

function csr(username: string, requestPem: string, status?: CertificateSigningRequest['status'], created = now - 2 * HOUR): CertificateSigningRequest {
  return {
    apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest',
    metadata: { name: 'r', creationTimestamp: iso(created) },
    spec: { request: Buffer.from(requestPem).toString('base64'), signerName: tls.signerName, usages: ['digital signature', 'server auth'], username },
    ...(status === undefined ? {} : { status }),
  };
}

const account = (node: string): string => `system:serviceaccount:${NAMESPACE}:vigil-recorder-${node}`;
const approved = (at: number) => ({ conditions: [{ type: 'Approved', status: 'True', reason: 'BulkApproved', lastUpdateTime: iso(at) }] });

test('signing decides again: an approved request from another node or a person for node-a’s names is failed, node-a’s own is signed', () => {
  const namesA = nodeCertificateNames('node-a', NAMESPACE, settings);
  const pem = createSigningRequest(p256(), namesA);
  assert.deepEqual(decideSigning(csr(account('node-a'), pem, approved(now)), nodes, NAMESPACE, settings), { action: 'sign', node: 'node-a' });

  const fromB = decideSigning(csr(account('node-b'), pem, approved(now)), nodes, NAMESPACE, settings);
  assert.equal(fromB.action, 'fail');
  assert.equal(fromB.action === 'fail' && fromB.reason, 'NamesMismatch');
  assert.match(fromB.action === 'fail' ? fromB.message : '', /not signed: node node-b: .*names that are not its own: "vigil-recorder-node-a"/);

  const fromAdmin = decideSigning(csr('kubernetes-admin', pem, approved(now)), nodes, NAMESPACE, settings);
  assert.equal(fromAdmin.action === 'fail' && fromAdmin.reason, 'NotARecorderNode');
  const extra = decideSigning(csr(account('node-a'), createSigningRequest(p256(), [...namesA, 'bank.example.com']), approved(now)), nodes, NAMESPACE, settings);
  assert.equal(extra.action === 'fail' && extra.reason, 'NamesMismatch');
});

/** The request's DER with the byte after `marker` (plus `skip` header bytes) replaced: a value of the wrong ASN.1 type. */
function corrupted(pem: string, marker: string, headerBytes: (der: Buffer, at: number) => number): string {
  const der = Buffer.from(pem.replace(/-----[^-]+-----|\s/g, ''), 'base64');
  const at = der.indexOf(Buffer.from(marker, 'hex'));
  assert.ok(at > 0, `marker ${marker} in the request`);
  const tagAt = headerBytes(der, at + marker.length / 2);
  assert.equal(der[tagAt], 0x30, 'a SEQUENCE where the corruption goes');
  der[tagAt] = 0x02; // INTEGER: the outer structure still parses, the value does not
  return `-----BEGIN CERTIFICATE REQUEST-----\n${der.toString('base64')}\n-----END CERTIFICATE REQUEST-----\n`;
}

const lengthBytes = (der: Buffer, at: number): number => ((der[at] as number) & 0x80 ? 1 + ((der[at] as number) & 0x7f) : 1);

test('a request with a malformed extensionRequest attribute or subjectAltName is denied InvalidRequest, not thrown', () => {
  const pem = createSigningRequest(p256(), nodeCertificateNames('node-a', NAMESPACE, settings));
  // extensionRequest OID, then SET (tag, length), then the Extensions SEQUENCE.
  const badAttribute = corrupted(pem, '06092a864886f70d01090e', (der, at) => at + 1 + lengthBytes(der, at + 1));
  // subjectAltName OID, then OCTET STRING (tag, length), then the GeneralNames SEQUENCE.
  const badNames = corrupted(pem, '0603551d11', (der, at) => at + 1 + lengthBytes(der, at + 1));
  for (const bad of [badAttribute, badNames]) {
    const decision = decideCertificateRequest(csr(account('node-a'), bad), nodes, NAMESPACE, settings);
    assert.equal(decision.action, 'deny');
    assert.equal(decision.action === 'deny' && decision.reason, 'InvalidRequest');
    assert.match(decision.action === 'deny' ? decision.message : '', /does not parse/);
    assert.equal(decideSigning(csr(account('node-a'), bad, approved(now)), nodes, NAMESPACE, settings).action, 'fail');
  }
  assert.equal(Object.hasOwn(readSigningRequest(pem), 'otherExtensions'), false, 'no field computed and never read');
});

test('a finished request is deleted an hour after it finished (signed, denied, failed), not an hour after it was created', () => {
  const pem = createSigningRequest(p256(), nodeCertificateNames('node-a', NAMESPACE, settings));
  // Approved at creation two hours ago (the operator down), signed five minutes ago: stays until 55 minutes from now.
  const caKey = p256();
  const caPem = createCaCertificate(caKey, 'CA', new Date(now - 365 * 24 * HOUR), new Date(now + 365 * 24 * HOUR));
  const request = readSigningRequest(pem);
  const leaf = issueCertificate({ publicKeyDer: request.publicKeyDer, dnsNames: request.dnsNames, clientAuth: false, notBefore: new Date(now - 300_000), notAfter: new Date(now + 24 * HOUR) }, caPem, caKey);
  const signed = csr(account('node-a'), pem, { ...approved(now - 2 * HOUR), certificate: Buffer.from(leaf + caPem).toString('base64') });
  assert.equal(finishedRequestExpiresAt(signed, tls, HOUR), now + 55 * 60_000);

  const denied = csr(account('node-b'), pem, { conditions: [{ type: 'Denied', status: 'True', reason: 'NamesMismatch', lastUpdateTime: iso(now - 10 * 60_000) }] });
  assert.equal(finishedRequestExpiresAt(denied, tls, HOUR), now + 50 * 60_000);
  const failed = csr(account('node-b'), pem, { conditions: [...approved(now - 2 * HOUR).conditions, { type: 'Failed', status: 'True', reason: 'NamesMismatch', lastUpdateTime: iso(now - 1000) }] });
  assert.equal(finishedRequestExpiresAt(failed, tls, HOUR), now - 1000 + HOUR);
  assert.equal(finishedRequestExpiresAt(csr(account('node-a'), pem, approved(now)), tls, HOUR), undefined, 'approved, not yet signed: not finished');
  const timeless = csr(account('node-b'), pem, { conditions: [{ type: 'Denied', status: 'True' }] }, now - 30 * 60_000);
  assert.equal(finishedRequestExpiresAt(timeless, tls, HOUR), now + 30 * 60_000, 'no time on it: counted from creation');
});
