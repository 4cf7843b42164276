// Node to node over TLS: /assemble fetches its parts over https, checking the peer against cluster.tls.ca_file; a peer whose certificate comes from another CA is refused.
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { runCommand } from '@vigil/testing/command';
import { waitUntil } from '@vigil/testing/processes';
import { startRtspCamera } from '@vigil/testing/rtsp-camera';
import { createTestCa } from '@vigil/testing/test-ca';
import { tempDir } from '@vigil/testing/temp-dir';
import { sha256, startRecorderProcess } from '../support/recorder-process.js';
import { segmentFiles } from './helpers.js';
import { assembleExport, exportTwoParts, submit, waitForJob } from './jobs-helpers.js';
import { installPair, trustInThisProcess } from './tls-helpers.js';

const OPERATOR = 'tls-assemble-operator';
const CLUSTER = 'tls-cluster-secret';

test('assemble over TLS: parts from a peer with a certificate of the cluster CA; a peer with another CA’s certificate is refused', { timeout: 150_000 }, async (t) => {
  const dir = await tempDir(t);
  const clusterCa = await createTestCa(join(dir, 'cluster-ca'), { name: 'Cluster CA', intermediate: true });
  const foreignCa = await createTestCa(join(dir, 'foreign-ca'), { name: 'Some Other CA' });
  trustInThisProcess(clusterCa.caPem);
  const tokenFile = join(dir, 'cluster.token');
  await writeFile(tokenFile, `${CLUSTER}\n`);
  const auth = { tokens: [{ name: 'op', role: 'operator', sha256: sha256(OPERATOR) }], cluster_token_file: tokenFile };
  // Each node its own key and certificate; A and B from the cluster's CA, C from another one.
  const tlsOf = async (node: string, ca: typeof clusterCa): Promise<{ cert_file: string; key_file: string }> => {
    const files = await installPair(await ca.issue(node), join(dir, `${node}-tls`));
    return { cert_file: files.certFile, key_file: files.keyFile };
  };

  const camera = await startRtspCamera({ width: 320, height: 240, fps: 25, gop: 25 });
  t.after(() => camera.stop());
  const a = await startRecorderProcess({ dir: join(dir, 'a'), config: { auth, tls: await tlsOf('a', clusterCa), record: { segment_seconds: 2 }, cameras: [{ id: 'acam', source: camera.url }] } });
  t.after(() => a.stop());
  const c = await startRecorderProcess({ dir: join(dir, 'c'), config: { auth, tls: await tlsOf('c', foreignCa), cameras: [] } });
  t.after(() => c.stop());
  const aAddr = new URL(a.url).host;
  const cAddr = new URL(c.url).host;
  const b = await startRecorderProcess({
    dir: join(dir, 'b'),
    config: { auth, tls: await tlsOf('b', clusterCa), cluster: { peers: [aAddr, cAddr], tls: { ca_file: clusterCa.caFile } }, cameras: [] },
  });
  t.after(() => b.stop());

  await waitUntil(async () => (await segmentFiles(a.recordPath)).length >= 4, 40_000, 'recordings on A');
  const parts = await exportTwoParts(a.url, 'acam', 2, OPERATOR);
  const joined = await assembleExport(b, 'acam', parts, CLUSTER, OPERATOR);
  assert.equal(joined.errors, '');
  assert.ok(Math.abs(joined.playSeconds - 4) <= 1.1, `two 2 s parts make ${joined.playSeconds}s`);

  // C serves HTTPS well enough for a client that trusts its own CA…
  const own = await runCommand('curl', ['-sS', '--fail', '--cacert', foreignCa.caFile, `${c.url}/api/health/live`]);
  assert.equal(own.code, 0, own.stderr);
  // …but its certificate is not from the cluster's CA: B ends the handshake, before any request (and its cluster token) is sent.
  const foreign = await submit(b.url, '/api/archive/acam/assemble', CLUSTER, { kind: 'export', parts: [parts[0], { peer_addr: cAddr, peer_job_id: 'abcdef0123456789', ordinal: 1 }] });
  const refused = await waitForJob(b.url, foreign.body['job_id'] as string, ['done', 'failed'], 60_000, OPERATOR);
  assert.equal(refused.state, 'failed');
  assert.equal(refused.reason, 'peer_unreachable');
  assert.match(refused.message ?? '', new RegExp(`from peer ${cAddr.replace(/\./g, '\\.')} cannot be fetched: .*(certificate|issuer)`));
  t.diagnostic(refused.message ?? '');
});
