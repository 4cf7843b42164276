// The node-certificate requester's state machine against a fake CSR API answering with certificates the test CA signs:
// a certificate it accepts is one it keeps, and one it does not keep is a failure retried with backoff, its reason logged.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { createSigningRequest, readSigningRequest, type CertificateSigningRequest } from '@vigil/kube';
import { tempDir } from '@vigil/testing/temp-dir';
import { createTestCa } from '@vigil/testing/test-ca';
import { nodeCertificateFiles } from '../../src/cluster/node-certificate-files.js';
import { NodeCertificateRequester, type SigningRequestApi } from '../../src/cluster/node-certificate-requester.js';
import { ManualClock, testLogger } from './../support/fakes.js';

const NAMES = ['vigil-recorder-node-a', 'vigil-recorder-node-a.vigil.svc'];
const HOUR = 3600_000;
const SIMULATED_MS = 10 * 60_000;

/** A CSR API whose signer answers every request for the node's key with `issued` (approved and signed at once). */
function signingApi(key: KeyObject, issued: string): SigningRequestApi & { created: number } {
  const requests = new Map<string, CertificateSigningRequest>();
  const keyDer = readSigningRequest(createSigningRequest(key, NAMES)).publicKeyDer;
  const api = {
    created: 0,
    create: async (body: CertificateSigningRequest) => {
      const asked = readSigningRequest(Buffer.from(body.spec.request, 'base64').toString('utf8'));
      assert.deepEqual(Buffer.from(asked.publicKeyDer), Buffer.from(keyDer), 'the request is for the node key');
      api.created += 1;
      const name = `csr-${api.created}`;
      const csr: CertificateSigningRequest = {
        ...body,
        metadata: { ...body.metadata, name },
        status: { conditions: [{ type: 'Approved', status: 'True', reason: 'Test' }], certificate: Buffer.from(issued).toString('base64') },
      };
      requests.set(name, csr);
      return csr;
    },
    get: async (name: string) => requests.get(name),
  };
  return api;
}

interface Run {
  created: number;
  reloads: number;
  waiting: string[];
  log: string;
  certWritten: boolean;
}

/** Runs a requester for SIMULATED_MS of clock time (1 s steps, real I/O between them) against a signer issuing `issued`. */
async function runRequester(t: TestContext, opts: { issued: (csrPem: string) => Promise<string>; caFile: string; key: KeyObject; startAt?: number }): Promise<Run> {
  const dir = await tempDir(t);
  const files = nodeCertificateFiles(dir, 'node-a');
  await mkdir(join(dir, 'node_node-a', 'tls'), { recursive: true });
  const api = signingApi(opts.key, await opts.issued(createSigningRequest(opts.key, NAMES)));
  const clock = new ManualClock(opts.startAt ?? Date.now() + 60_000);
  const { log, text } = testLogger('info');
  const run = { reloads: 0, waiting: [] as string[] };
  const requester = new NodeCertificateRequester({
    api, nodeName: 'node-a', files, key: opts.key, dnsNames: NAMES, signerName: 'vigil.io/node', caFile: opts.caFile, clock, log,
    served: { reload: async () => { run.reloads += 1; return true; }, setWaiting: (reason) => run.waiting.push(reason) },
  });
  requester.start();
  t.after(() => requester.stop());
  for (let ms = 0; ms < SIMULATED_MS; ms += 1000) {
    await new Promise((resolve) => setTimeout(resolve, 3));
    clock.advance(1000);
  }
  await new Promise((resolve) => setTimeout(resolve, 20));
  requester.stop();
  return { created: api.created, reloads: run.reloads, waiting: run.waiting, log: text(), certWritten: existsSync(files.certFile) };
}

function nodeKey(): KeyObject {
  return generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
}

/** Backoff 5 s doubling to 5 min: within 10 minutes about 7 requests (5+10+20+40+80+160+300 s), never one a second. */
function assertBackedOff(run: Run, why: RegExp): void {
  assert.ok(run.created >= 3 && run.created <= 9, `requests in 10 simulated minutes: ${run.created} (a storm is hundreds)`);
  assert.match(run.log, why, 'the reason is logged');
  assert.match(run.log, /does not keep/, 'logged as an issued certificate the node does not keep');
  assert.ok(run.waiting.some((w) => why.test(w)), 'readiness carries the reason');
}

test('a certificate the signer issues as asked is installed once and kept: one request in ten minutes', async (t) => {
  const ca = await createTestCa(join(await tempDir(t), 'ca'));
  const key = nodeKey();
  const run = await runRequester(t, { key, caFile: ca.caFile, issued: (csr) => ca.signRequest(csr, { hosts: NAMES }) });
  assert.equal(run.created, 1);
  assert.equal(run.reloads, 1);
  assert.ok(run.certWritten);
  assert.match(run.log, /node certificate issued and served/);
});

test('a signer that adds a name: not kept, not installed, asked again only with backoff', async (t) => {
  const ca = await createTestCa(join(await tempDir(t), 'ca'));
  const run = await runRequester(t, { key: nodeKey(), caFile: ca.caFile, issued: (csr) => ca.signRequest(csr, { hosts: [...NAMES, 'extra.example.com'] }) });
  assertBackedOff(run, /names it needs differ/);
  assert.equal(run.certWritten, false, 'a certificate with another name is not served');
});

test('a CA not in cluster.tls.ca_file: not kept, not installed, asked again only with backoff', async (t) => {
  const dir = await tempDir(t);
  const trusted = await createTestCa(join(dir, 'trusted'));
  const other = await createTestCa(join(dir, 'other'), { name: 'Other CA' });
  const run = await runRequester(t, { key: nodeKey(), caFile: trusted.caFile, issued: (csr) => other.signRequest(csr, { hosts: NAMES }) });
  assertBackedOff(run, /not issued by a CA of cluster\.tls\.ca_file/);
  assert.equal(run.certWritten, false);
});

test('a certificate cut short (renewal time already passed when issued): served once, asked again only with backoff', async (t) => {
  const ca = await createTestCa(join(await tempDir(t), 'ca'));
  // Valid one day from now; the node's clock stands 20 hours on, past two thirds of it: as a CA near its end issues.
  const run = await runRequester(t, { key: nodeKey(), caFile: ca.caFile, startAt: Date.now() + 20 * HOUR, issued: (csr) => ca.signRequest(csr, { hosts: NAMES, days: 1 }) });
  assertBackedOff(run, /two thirds of the certificate's lifetime have passed/);
  assert.ok(run.certWritten, 'served rather than nothing');
  assert.equal(run.reloads, 1, 'the same end again is not installed again');
});
