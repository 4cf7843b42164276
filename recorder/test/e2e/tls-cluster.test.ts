// Cluster mode with TLS on loopback (the real control plane, each node's own recorder identity as the operator makes it, no
// operator): each node reports an https:// URL on its heartbeat Lease, and a 307 names the owner's https URL.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { startTestCluster } from '@vigil/testing/kube/test-cluster';
import { startOnFreshPort } from '@vigil/testing/net';
import { waitUntil } from '@vigil/testing/processes';
import { createTestCa } from '@vigil/testing/test-ca';
import { tempDir } from '@vigil/testing/temp-dir';
import { sha256, startRecorderProcess, type RecorderProcess } from '../support/recorder-process.js';
import { installPair, trustInThisProcess, tryUpgrade } from './tls-helpers.js';

const TOKEN = 'tls-cluster-viewer';
const NODES = ['node-a', 'node-b'];
const GROUP = { group: 'vigil.io', version: 'v1alpha1' };

test('in a cluster with TLS every node advertises https://, and a 307 (HTTP and WebSocket) names the owner’s https URL, which answers', { timeout: 120_000 }, async (t) => {
  const dir = await tempDir(t);
  const cluster = await startTestCluster(t);
  const ca = await createTestCa(join(dir, 'ca'), { name: 'Release CA', intermediate: true });
  trustInThisProcess(ca.caPem);

  // What the operator would have made: a RecorderNode per node with its recorder's identity, and the camera assigned to node-b.
  for (const node of NODES) {
    await cluster.addNode(node);
    await cluster.custom.createClusterCustomObject({ ...GROUP, plural: 'recordernodes', body: { apiVersion: 'vigil.io/v1alpha1', kind: 'RecorderNode', metadata: { name: node }, spec: { nodeName: node } } });
  }
  const cameras = { ...GROUP, namespace: cluster.namespace, plural: 'cameras' };
  const created = (await cluster.custom.createNamespacedCustomObject({ ...cameras, body: { apiVersion: 'vigil.io/v1alpha1', kind: 'Camera', metadata: { name: 'cam-b' }, spec: { source: 'rtsp://127.0.0.1:9/nothing-here' } } })) as Record<string, unknown>;
  await cluster.custom.replaceNamespacedCustomObjectStatus({ ...cameras, name: 'cam-b', body: { ...created, status: { node: 'node-b', phase: 'Assigned' } } });

  const pods = new Map<string, RecorderProcess>();
  for (const node of NODES) {
    const files = await installPair(await ca.issue(node), join(dir, node, 'tls'));
    const kubeconfig = (await cluster.nodeKubeconfig(node, { provision: true })).path;
    // The advertised URL names the port, so the port is picked first (and again if someone takes it before the bind).
    const start = (port: number): Promise<RecorderProcess> =>
      startRecorderProcess({
        dir: join(dir, node),
        port,
        env: { KUBECONFIG: kubeconfig },
        config: {
          nodeName: node,
          auth: { tokens: [{ name: 'wall', role: 'viewer', sha256: sha256(TOKEN) }] },
          tls: { cert_file: files.certFile, key_file: files.keyFile },
          cluster: { enabled: true, namespace: cluster.namespace, dataDir: join(dir, node, 'data'), advertise_url: `https://127.0.0.1:${port}`, tls: { ca_file: ca.caFile } },
        },
      });
    const proc = await startOnFreshPort(start, (err) => String(err).includes('EADDRINUSE'), 3);
    t.after(() => proc.stop());
    pods.set(node, proc);
  }
  const a = pods.get('node-a') as RecorderProcess;
  const b = pods.get('node-b') as RecorderProcess;
  assert.match(b.url, /^https:\/\//);
  // A recorder reports its URL on its own heartbeat Lease (the operator copies it onto the RecorderNode).
  const reportedUrl = async (node: string) =>
    (await cluster.coordination.readNamespacedLease({ name: `vigil-node-${node}`, namespace: cluster.namespace }).catch(() => undefined))?.metadata?.annotations?.['vigil.io/url'];
  await waitUntil(async () => {
    for (const node of NODES) if ((await reportedUrl(node)) !== `https://127.0.0.1:${new URL(pods.get(node)?.url ?? '').port}`) return false;
    return true;
  }, 30_000, 'every node’s https URL on its heartbeat Lease');

  const path = '/api/archive/cam-b/segments?from=0&to=60';
  let redirected: Response | undefined;
  await waitUntil(async () => {
    redirected = await fetch(`${a.url}${path}`, { redirect: 'manual', headers: { authorization: `Bearer ${TOKEN}` } });
    return redirected.status === 307;
  }, 30_000, 'node-a sends cam-b to node-b');
  assert.equal(redirected?.headers.get('location'), `${b.url}${path}`);
  const followed = await fetch(redirected?.headers.get('location') as string, { headers: { authorization: `Bearer ${TOKEN}` } });
  assert.equal(followed.status, 200, 'the owner answers on its https URL, with a certificate of the release CA');

  const upgrade = await tryUpgrade(`${a.url}/websocket/cam-b`, ca.caPem, { authorization: `Bearer ${TOKEN}` });
  assert.equal(upgrade.status, 307);
  assert.equal(upgrade.location, `${b.url}/websocket/cam-b`);
});
