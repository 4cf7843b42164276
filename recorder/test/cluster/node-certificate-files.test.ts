// When a node keeps its certificate and when it asks for a new one (no I/O but temp files); leave keeps tls/.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { generateKeyPairSync, X509Certificate } from 'node:crypto';
import { test } from 'node:test';
import { createCaCertificate, createSigningRequest, issueCertificate, readSigningRequest } from '@vigil/kube';
import { tempDir } from '@vigil/testing/temp-dir';
import { AssignmentCache } from '../../src/cluster/assignment-cache.js';
import { assessNodeCertificate, nodeCertificateFiles } from '../../src/cluster/node-certificate-files.js';

const NAMES = ['vigil-recorder-node-a', 'vigil-recorder-node-a.vigil.svc'];
const DAY = 86400_000;

function ca(): { pem: string; key: ReturnType<typeof generateKeyPairSync>['privateKey'] } {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return { pem: createCaCertificate(privateKey, 'Test CA', new Date(Date.now() - DAY), new Date(Date.now() + 365 * DAY)), key: privateKey };
}

test('a node keeps a certificate for its key, its names and the trusted CA until two thirds of its lifetime; otherwise it says why it asks', () => {
  const release = ca();
  const other = ca();
  const { privateKey: key } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const { privateKey: otherKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const now = Date.now();
  const issue = (names: string[], forKey = key, by = release, start = now, days = 90) => {
    const req = readSigningRequest(createSigningRequest(forKey, names));
    return issueCertificate({ publicKeyDer: req.publicKeyDer, dnsNames: req.dnsNames, clientAuth: false, notBefore: new Date(start), notAfter: new Date(start + days * DAY) }, by.pem, by.key) + by.pem;
  };
  const trusted = [new X509Certificate(release.pem)];
  const assess = (certPem: string | undefined, at = now) => assessNodeCertificate({ certPem, key, dnsNames: NAMES, trusted, now: at, renewAtFraction: 2 / 3 });

  const good = assess(issue(NAMES));
  assert.equal(good.keep, true);
  assert.equal(good.keep && Math.round((good.renewAt - now) / DAY), 60, 'renewed 60 days into 90');
  assert.equal(assess(issue(NAMES), now + 61 * DAY).keep, false);
  assert.match(JSON.stringify(assess(issue(NAMES), now + 61 * DAY)), /two thirds/);
  assert.match(JSON.stringify(assess(undefined)), /no certificate yet/);
  assert.match(JSON.stringify(assess(issue(NAMES, otherKey))), /not for its key/);
  assert.match(JSON.stringify(assess(issue([NAMES[0] as string]))), /names it needs differ/);
  assert.match(JSON.stringify(assess(issue(NAMES, key, other))), /not issued by a CA of cluster\.tls\.ca_file/);
  assert.match(JSON.stringify(assess(issue(NAMES, key, release, now - 100 * DAY))), /expired/);
  assert.match(JSON.stringify(assess('garbage')), /holds no certificate/);
});

test('POST /cluster/leave erases the node state but keeps its key and certificate', async (t) => {
  const dir = await tempDir(t);
  const cache = new AssignmentCache(dir, 'node-a');
  await cache.write([]);
  const files = nodeCertificateFiles(dir, 'node-a');
  await mkdir(join(dir, 'node_node-a', 'tls'), { recursive: true });
  await writeFile(files.keyFile, 'key');
  await writeFile(files.certFile, 'cert');
  await cache.erase();
  assert.equal(await cache.read(), undefined, 'the assignment is gone');
  assert.ok(existsSync(files.keyFile) && existsSync(files.certFile), 'tls/ stays');
});
