// The kind run's scenario (kind-test/) on the tests' own control plane: three Nodes run by the process kubelet (one a
// tainted control plane), `helm install --wait` with kind-test/values.yaml, the RTSP test camera Deployment and the
// Cameras, then runKindScenario, the very function kind-test/scenario.mjs runs: every camera records, segments listed
// through `kubectl port-forward svc/vigil-api` with a 307 followed, a worker lost (loseNode for docker stop) and the
// archive gap, the worker back with nothing moving back, and `helm upgrade --wait` rolling the recorders node by node.
// Differences from kind, all outside the scenario: PostgreSQL is the tests' own (the chart's is disabled), and the
// Cameras name the test camera's loopback ports (no cluster DNS here).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments, stringify } from 'yaml';
import { ok, startKubeCluster } from '@vigil/testing/kube/kube-cluster';
import { kubectlDriver, runKindScenario } from '@vigil/testing/kube/cluster-scenario';
import { kubectlPath } from '@vigil/testing/kube/tools';
import { vigilImage } from '@vigil/testing/kube/images/vigil-image';
import { rtspCameraImage } from '@vigil/testing/kube/images/rtsp-camera-image';
import { startTestPostgres } from '@vigil/testing/postgres';
import { waitUntil } from '@vigil/testing/processes';
import { CHART_DIR, REPO_ROOT, writeValues } from './support/chart.js';

const NS = 'vigil';
const CONTROL_PLANE = 'vigil-control-plane';
const NODES = [CONTROL_PLANE, 'vigil-worker', 'vigil-worker2'];
const VERSION = (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
const KIND_VALUES = join(REPO_ROOT, 'kind-test/values.yaml');
const TOKEN = 'vigil-kind-test-admin-token';
/**
 * The kind run's images by the names its values and manifests give them. A recorder advertises https://localhost:PORT:
 * the kind values put `localhost` into every node certificate, so the release CA and the name are checked as in kind.
 */
const KIND_IMAGES = { [`vigil:${VERSION}`]: vigilImage({ advertiseHost: 'localhost' }), 'vigil-rtsp-camera:test': rtspCameraImage() };

/** A Node as kind makes it: the control plane labelled and tainted, the workers plain. */
function nodeManifest(name: string): string {
  const controlPlane = name === CONTROL_PLANE;
  return stringify({
    apiVersion: 'v1', kind: 'Node',
    metadata: { name, labels: { 'kubernetes.io/hostname': name, 'kubernetes.io/os': 'linux', ...(controlPlane ? { 'node-role.kubernetes.io/control-plane': '' } : {}) } },
    spec: controlPlane ? { taints: [{ key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' }] } : {},
  });
}

test('the kind scenario on the real control plane: helm install --wait, recording, port-forward with a 307, failover, upgrade node by node', { timeout: 600_000 }, async (t) => {
  const cluster = await startKubeCluster(t, { images: KIND_IMAGES });
  const { kubelet } = cluster.controlPlane;
  const kubectl = async (args: string[], input?: string) => ok(await cluster.kubectl(args, { timeoutMs: 150_000, ...(input === undefined ? {} : { input }) }), `kubectl ${args.join(' ')}`);
  const db = await startTestPostgres();
  t.after(() => db.destroy());
  for (const node of NODES) await kubectl(['apply', '-f', '-'], nodeManifest(node));
  await waitUntil(async () => (await kubectl(['get', 'nodes', '-o', 'jsonpath={.items[*].status.conditions[?(@.type=="Ready")].status}'])).split(' ').filter((s) => s === 'True').length === 3, 30_000, 'three Ready Nodes');

  // As run.sh: a namespace whose Pod Security level admits hostPath, then helm install --wait.
  await cluster.createNamespace(NS, { 'pod-security.kubernetes.io/enforce': 'privileged' });
  const overrides = await writeValues(cluster.dir, { postgresql: { enabled: false }, database: { url: db.url } });
  const installStarted = Date.now();
  ok(await cluster.helm(['install', 'vigil', CHART_DIR, '-n', NS, '-f', KIND_VALUES, '-f', overrides, '--set', `image.tag=${VERSION}`, '--wait', '--timeout', '3m'], { timeoutMs: 200_000 }), 'helm install --wait');
  t.diagnostic(`helm install --wait: ${Date.now() - installStarted} ms`);
  const operators = JSON.parse(await kubectl(['-n', NS, 'get', 'pods', '-l', 'app.kubernetes.io/component=operator', '-o', 'json'])) as { items: Array<{ spec: { nodeName?: string } }> };
  assert.deepEqual(operators.items.map((p) => p.spec.nodeName).sort(), ['vigil-worker', 'vigil-worker2'], 'the operator replicas are bound one per worker, none to the tainted control plane');

  await kubectl(['-n', NS, 'apply', '-f', join(REPO_ROOT, 'kind-test/rtsp-camera.yaml')]);
  await kubectl(['-n', NS, 'rollout', 'status', 'deploy/rtsp-camera', '--timeout=120s']);
  const cameraPod = JSON.parse(await kubectl(['-n', NS, 'get', 'pods', '-l', 'app=rtsp-camera', '-o', 'json'])) as { items: Array<{ metadata: { name: string }; spec: { nodeName: string } }> };
  assert.equal(cameraPod.items[0]?.spec.nodeName, CONTROL_PLANE, 'the test camera tolerates the control plane taint and selects it');
  const ports = (await kubelet.waitForPod(NS, cameraPod.items[0]?.metadata.name ?? '')).ports ?? new Map<number, number>();
  // cameras.yaml as run.sh applies it, the Service's host:port replaced by the camera container's loopback port.
  const cameras = parseAllDocuments(readFileSync(join(REPO_ROOT, 'kind-test/cameras.yaml'), 'utf8')).map((d) => d.toJS() as { kind: string; spec?: { source?: string } });
  for (const c of cameras) {
    if (c.spec?.source === undefined) continue;
    const source = new URL(c.spec.source);
    c.spec.source = `rtsp://127.0.0.1:${ports.get(Number(source.port))}${source.pathname}`;
  }
  await kubectl(['-n', NS, 'apply', '-f', '-'], cameras.map((c) => stringify(c)).join('---\n'));

  // The release CA, as run.sh reads it for NODE_EXTRA_CA_CERTS.
  let ca = '';
  await waitUntil(async () => {
    ca = (await cluster.kubectl(['-n', NS, 'get', 'configmap', 'vigil-ca', '-o', 'jsonpath={.data.ca\\.crt}'])).stdout;
    return ca.includes('BEGIN CERTIFICATE');
  }, 60_000, 'the release CA (ConfigMap vigil-ca)');

  const driver = kubectlDriver({ kubectl: kubectlPath(), kubeconfig: cluster.kubeconfig, home: cluster.dir, namespace: NS, apiService: 'vigil-api', apiPort: 9997, token: TOKEN, https: true, ca });
  t.after(() => driver.close());
  const result = await runKindScenario({
    driver,
    namespace: NS,
    cameras: ['cam-1', 'cam-2', 'cam-3'],
    controlPlaneNode: CONTROL_PLANE,
    segmentSeconds: 4,
    maxGapSeconds: 20,
    stopNode: (node) => {
      kubelet.loseNode(node);
      return Promise.resolve();
    },
    startNode: (node) => {
      kubelet.reviveNode(node);
      return Promise.resolve();
    },
    helmUpgrade: async () => {
      ok(await cluster.helm(['upgrade', 'vigil', CHART_DIR, '-n', NS, '--reuse-values', '--set', 'recorder.logLevel=debug', '--wait', '--timeout', '3m'], { timeoutMs: 200_000 }), 'helm upgrade --wait');
    },
    log: (message) => t.diagnostic(message),
  });
  assert.ok(result.redirected > 0);
  assert.ok(result.maxOut <= 1);
  assert.deepEqual([...result.rollOrder].sort(), [...NODES].sort());
});
