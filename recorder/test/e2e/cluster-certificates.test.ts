// Node certificates on loopback, end to end (the real control plane, two operators, the recorder Pods run by the process kubelet):
// each recorder makes its key and gets its certificate through the CSR API from the operator's release CA, reports
// https URLs, 307s name https URLs that answer with a release-CA certificate for the owner's Service name, /assemble
// works over TLS between nodes, a short lifetime makes a node renew and serve a new serial without a restart, and a
// peer with a certificate of another CA is refused.
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { connect } from 'node:tls';
import { recorderServiceHost } from '@vigil/crds';
import { waitUntil } from '@vigil/testing/processes';
import { createTestCa } from '@vigil/testing/test-ca';
import { createServer } from 'node:https';
import { Agent, setGlobalDispatcher } from 'undici';
import { cameraManifests, startLoopbackCluster, TOKENS } from './cluster-fixture.js';
import { submit, waitForJob } from './jobs-helpers.js';

const NODES = ['node-a', 'node-b'];
/** The shortest lifetime the operator's settings allow: a node renews after 40 s. */
const LIFETIME_S = 60;
const CLUSTER_TOKEN = 'node-to-node-token-1';

/** The serial a node serves to a client that checks its certificate against `ca` for its Service name (or the error). */
function servedSerial(url: string, ca: string, servername: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port), ca, servername }, () => {
      const serial = socket.getPeerCertificate().serialNumber;
      socket.end();
      resolve(serial);
    });
    socket.on('error', reject);
  });
}

test('node certificates through the CSR API: issued by the release CA, https everywhere, assemble over TLS, renewal without restart, a foreign CA refused', { timeout: 420_000 }, async (t) => {
  const fx = await startLoopbackCluster(t, { nodes: NODES, cameraCount: 1, tls: { certificateLifetimeSeconds: LIFETIME_S } });
  const { cluster } = fx;
  const ca = (await cluster.core.readNamespacedConfigMap({ name: 'vigil-ca', namespace: cluster.namespace })).data?.['ca.crt'] ?? '';
  assert.match(ca, /BEGIN CERTIFICATE/);
  // This test's own HTTP client checks every chain against the release CA; the names are checked below with the
  // Service name as servername (the certificates name the Services, which do not resolve on loopback).
  setGlobalDispatcher(new Agent({ connect: { ca, checkServerIdentity: () => undefined } }));
  const url = (node: string): string => fx.pods.get(node)?.url ?? '';
  const serviceHost = (node: string): string => recorderServiceHost(node, cluster.namespace);

  const firstSerial = new Map<string, string>();
  await t.test('each node serves a certificate of the release CA for its Service name, asked for with a CSR the operator approved', async () => {
    for (const node of NODES) {
      await waitUntil(async () => {
        const serial = await servedSerial(url(node), ca, serviceHost(node)).catch(() => undefined);
        if (serial !== undefined) firstSerial.set(node, serial);
        return serial !== undefined;
      }, 60_000, `${node} serving its issued certificate`);
      // Another node's name is refused by the same check: the certificate is this node's own.
      await assert.rejects(servedSerial(url(node), ca, serviceHost(node === 'node-a' ? 'node-b' : 'node-a')), /does not match|altnames/i);
    }
    const table = await cluster.kubectl('get', 'csr');
    for (const node of NODES) assert.match(table, new RegExp(`system:serviceaccount:${cluster.namespace}:vigil-recorder-${node}\\s+<none>\\s+Approved,Issued`));
    const ready = await fx.api('node-a', '/api/health/ready');
    assert.equal(ready.status, 200, JSON.stringify(ready.body));
    // The served certificate's end, reported on the heartbeat, becomes the RecorderNode's CertificateValid condition.
    await waitUntil(async () => (await cluster.recorderNodes()).every((rn) => rn.status?.conditions?.some((c) => c.type === 'CertificateValid' && c.status === 'True' && /the certificate its API serves ends at /.test(c.message ?? ''))), 30_000, 'CertificateValid True on every RecorderNode');
  });

  let owner = '';
  let other = '';
  await t.test('/cluster/metrics names https URLs; a 307 names the owner’s https URL, which answers with its certificate', async () => {
    const metrics = await fx.api('node-b', '/cluster/metrics');
    const nodes = (metrics.body as { nodes: Array<{ node_name: string; url: string }> }).nodes;
    assert.deepEqual(nodes.map((n) => n.node_name).sort(), NODES);
    for (const n of nodes) assert.match(n.url, /^https:\/\//);

    const file = join(cluster.dir, 'camera.yaml');
    await writeFile(file, cameraManifests(fx, ['cam-1']));
    await cluster.kubectl('apply', '-n', cluster.namespace, '-f', file);
    await waitUntil(async () => (await cluster.camera('cam-1')).status?.phase === 'Recording', 90_000, 'cam-1 Recording');
    owner = (await cluster.camera('cam-1')).status?.node ?? '';
    other = NODES.find((n) => n !== owner) ?? '';
    const path = '/api/archive/cam-1/segments?from=0&to=60';
    const redirected = await fx.api(other, path);
    assert.equal(redirected.status, 307);
    assert.equal(redirected.location, `${url(owner)}${path}`);
    assert.match(redirected.location ?? '', /^https:\/\//);
    assert.ok((await servedSerial(redirected.location ?? '', ca, serviceHost(owner))).length > 0, 'the Location answers with the owner’s certificate of the release CA');
    assert.equal((await fx.api(owner, path)).status, 200);
  });

  await t.test('/assemble fetches its parts from the owner over TLS', async () => {
    const base = url(owner);
    let parts: Array<Record<string, unknown>> = [];
    await waitUntil(async () => {
      const now = Math.floor(Date.now() / 1000);
      const p1 = await submit(base, `/api/archive/cam-1/export?from=${now - 8}&to=${now - 5}`, TOKENS.admin);
      const p2 = await submit(base, `/api/archive/cam-1/export?from=${now - 5}&to=${now - 3}`, TOKENS.admin);
      if (p1.status !== 202 || p2.status !== 202) return false;
      const done = await Promise.all([p1, p2].map((p) => waitForJob(base, p.body['job_id'] as string, ['done', 'failed'], 60_000, TOKENS.admin)));
      if (done.some((j) => j.state !== 'done')) return false;
      const addr = new URL(base).host;
      parts = [{ peer_addr: addr, peer_job_id: p1.body['job_id'], ordinal: 0 }, { peer_addr: addr, peer_job_id: p2.body['job_id'], ordinal: 1 }];
      return true;
    }, 90_000, 'two export parts on the owner');
    const asm = await submit(url(other), '/api/archive/cam-1/assemble', CLUSTER_TOKEN, { kind: 'export', parts });
    assert.equal(asm.status, 202, JSON.stringify(asm.body));
    const done = await waitForJob(url(other), asm.body['job_id'] as string, ['done', 'failed'], 90_000, TOKENS.admin);
    assert.equal(done.state, 'done', JSON.stringify(done));
  });

  await t.test('a short lifetime: each node renews after two thirds of it and serves the new serial without a restart', async () => {
    for (const node of NODES) {
      const pid = fx.pods.get(node)?.proc.pid;
      await waitUntil(async () => {
        const serial = await servedSerial(url(node), ca, serviceHost(node)).catch(() => undefined);
        return serial !== undefined && serial !== firstSerial.get(node);
      }, LIFETIME_S * 1000 + 30_000, `${node} serving a renewed certificate`);
      assert.equal(fx.pods.get(node)?.proc.pid, pid, 'the same process');
      assert.ok(fx.pods.get(node)?.proc.logs().some((l) => l.msg === 'node certificate issued and served'));
    }
  });

  await t.test('a peer serving a certificate of another CA is refused', async () => {
    // The owner's node goes (its recorder killed, not restarted); in its place (its address, the URL its RecorderNode
    // names) a server whose certificate names the owner's Service but comes from another CA.
    const foreign = await createTestCa(join(cluster.dir, 'foreign-ca'), { name: 'Some Other CA' });
    const issued = await foreign.issue('impostor', { hosts: [serviceHost(owner), '127.0.0.1'] });
    const addr = new URL(url(owner));
    fx.loseNode(owner);
    await waitUntil(() => fx.pods.get(owner)?.proc.pid === undefined, 10_000, 'the owner’s recorder gone');
    const impostor = createServer({ cert: issued.certPem, key: issued.keyPem }, (_req, res) => res.end('{}'));
    await new Promise<void>((resolve) => impostor.listen(Number(addr.port), '127.0.0.1', resolve));
    t.after(() => impostor.close());
    const parts = [{ peer_addr: addr.host, peer_job_id: 'any', ordinal: 0 }];
    const asm = await submit(url(other), '/api/archive/cam-1/assemble', CLUSTER_TOKEN, { kind: 'export', parts });
    assert.equal(asm.status, 202, JSON.stringify(asm.body));
    const failed = await waitForJob(url(other), asm.body['job_id'] as string, ['done', 'failed'], 60_000, TOKENS.admin);
    assert.equal(failed.state, 'failed');
    assert.match(`${failed.reason ?? ''} ${failed.message ?? ''}`, /certificate|issuer|verify/i);
  });
});
