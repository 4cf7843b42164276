// The process kubelet's two stand-ins beyond running Pods: binding the Pods of a Deployment to Nodes as kube-scheduler
// would (nodeSelector, taints and tolerations, spread over Nodes, nothing bound where nothing fits) and the endpoint that
// `kubectl port-forward` reaches through kube-apiserver (SPDY streams to the Pod's port, an error for a port it does not serve).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import { AppsV1Api, CoreV1Api, KubeConfig } from '../../src/kube/client-node.js';
import { startKubeCluster } from '../../src/kube/kube-cluster.js';
import type { ContainerImages } from '../../src/kube/kubelet/container-images.js';
import { forwardedPort } from '../../src/kube/cluster-scenario/kubectl-driver.js';
import { kubectlPath } from '../../src/kube/tools.js';
import { waitUntil } from '../../src/processes.js';

const NS = 'bind';
const IMAGE = 'example.com/echo:1';
/** Answers every request with its Pod's name and the request body's size (so a large upload is seen whole). */
const PROGRAM = `require('node:http').createServer((req, res) => { let n = 0; req.on('data', (c) => { n += c.length; }); req.on('end', () => res.end(JSON.stringify({ pod: process.env.POD_NAME, received: n, big: 'x'.repeat(Number(req.headers['x-answer-bytes'] ?? 0)) }))); }).listen(Number(process.env.PORT), '127.0.0.1');`;
const IMAGES: ContainerImages = {
  [IMAGE]: { entrypoint: [process.execPath], prepare: (c) => ({ command: [process.execPath, '-e', PROGRAM], env: { ...c.env, PORT: String(c.ports.get(8080)) } }) },
};

function deployment(name: string, replicas: number, spec: Record<string, unknown>): object {
  return {
    metadata: { name },
    spec: {
      replicas, selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { ...spec, containers: [{ name: 'echo', image: IMAGE, ports: [{ name: 'http', containerPort: 8080 }], env: [{ name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }], readinessProbe: { tcpSocket: { port: 8080 }, periodSeconds: 1 } }] },
      },
    },
  };
}

/** `kubectl port-forward TARGET :PORT` until the test ends; the local port. */
async function portForward(t: { after(fn: () => void): void }, kubeconfig: string, home: string, target: string, port: number): Promise<{ local: number; output: () => string }> {
  const child = spawn(kubectlPath(), ['-n', NS, 'port-forward', target, `:${port}`], { env: { PATH: process.env.PATH, HOME: home, KUBECONFIG: kubeconfig }, stdio: ['ignore', 'pipe', 'pipe'] });
  t.after(() => child.kill('SIGTERM'));
  let seen = '';
  child.stdout.on('data', (c: Buffer) => { seen += c.toString(); });
  child.stderr.on('data', (c: Buffer) => { seen += c.toString(); });
  let local: number | undefined;
  await waitUntil(() => Promise.resolve((local = forwardedPort(seen)) !== undefined), 20_000, `kubectl port-forward ${target}: ${seen}`, 100);
  return { local: local as number, output: () => seen };
}

test('the kubelet binds Deployment Pods as a scheduler would, and serves kubectl port-forward through kube-apiserver', { timeout: 180_000 }, async (t) => {
  const cluster = await startKubeCluster(t, { images: IMAGES });
  const kc = new KubeConfig();
  kc.loadFromFile(cluster.kubeconfig);
  const core = kc.makeApiClient(CoreV1Api);
  const apps = kc.makeApiClient(AppsV1Api);
  await core.createNode({ body: { metadata: { name: 'plane', labels: { role: 'plane' } }, spec: { taints: [{ key: 'dedicated', value: 'plane', effect: 'NoSchedule' }] } } });
  for (const name of ['w1', 'w2']) await core.createNode({ body: { metadata: { name, labels: { role: 'worker' } } } });
  // The kubelet binds from its watch of the Nodes: a Node it has not seen yet is no candidate (two replicas both went to
  // w1 once, in a fresh-clone run). It posts a Node Ready as soon as it knows it.
  const ready = async () => (await core.listNode()).items.filter((n) => n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')).map((n) => n.metadata?.name).sort();
  await waitUntil(async () => JSON.stringify(await ready()) === JSON.stringify(['plane', 'w1', 'w2']), 30_000, 'the kubelet knows the three Nodes');
  await cluster.createNamespace(NS);

  await apps.createNamespacedDeployment({ namespace: NS, body: deployment('spread', 2, {}) as never });
  await apps.createNamespacedDeployment({ namespace: NS, body: deployment('tolerant', 1, { nodeSelector: { role: 'plane' }, tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'plane', effect: 'NoSchedule' }] }) as never });
  await apps.createNamespacedDeployment({ namespace: NS, body: deployment('intolerant', 1, { nodeSelector: { role: 'plane' } }) as never });
  const nodesOf = async (app: string): Promise<string[]> => (await core.listNamespacedPod({ namespace: NS, labelSelector: `app=${app}` })).items.map((p) => p.spec?.nodeName ?? '').sort();
  await waitUntil(async () => (await apps.readNamespacedDeployment({ name: 'spread', namespace: NS })).status?.availableReplicas === 2, 60_000, 'Deployment spread available');
  await waitUntil(async () => (await apps.readNamespacedDeployment({ name: 'tolerant', namespace: NS })).status?.availableReplicas === 1, 60_000, 'Deployment tolerant available');

  await t.test('bound where they fit: spread over the untainted workers, the tolerating Pod on the tainted node, the other nowhere', async () => {
    assert.deepEqual(await nodesOf('spread'), ['w1', 'w2']);
    assert.deepEqual(await nodesOf('tolerant'), ['plane']);
    assert.deepEqual(await nodesOf('intolerant'), [''], 'selects the tainted node without tolerating its taint: Pending, unbound');
  });

  await t.test('kubectl port-forward (a Pod, and a Service by its selector) reaches the Pod’s port both ways', async () => {
    const pod = (await core.listNamespacedPod({ namespace: NS, labelSelector: 'app=tolerant' })).items[0]?.metadata?.name ?? '';
    const viaPod = await portForward(t, cluster.kubeconfig, cluster.dir, `pod/${pod}`, 8080);
    const upload = 'u'.repeat(300_000);
    const answer = (await (await fetch(`http://127.0.0.1:${viaPod.local}/`, { method: 'POST', body: upload, headers: { 'x-answer-bytes': '200000' } })).json()) as { pod: string; received: number; big: string };
    assert.deepEqual([answer.pod, answer.received, answer.big.length], [pod, upload.length, 200_000]);
    // Several connections over one forward, one after another and at once.
    const again = await Promise.all([1, 2, 3].map(async () => ((await (await fetch(`http://127.0.0.1:${viaPod.local}/`)).json()) as { pod: string }).pod));
    assert.deepEqual(again, [pod, pod, pod]);

    await core.createNamespacedService({ namespace: NS, body: { metadata: { name: 'tolerant' }, spec: { selector: { app: 'tolerant' }, ports: [{ port: 80, targetPort: 'http' }] } } });
    const viaService = await portForward(t, cluster.kubeconfig, cluster.dir, 'svc/tolerant', 80);
    assert.equal(((await (await fetch(`http://127.0.0.1:${viaService.local}/`)).json()) as { pod: string }).pod, pod);
  });

  await t.test('a port the Pod does not serve: the connection fails and kubectl reports the kubelet’s error', async () => {
    const pod = (await core.listNamespacedPod({ namespace: NS, labelSelector: 'app=tolerant' })).items[0]?.metadata?.name ?? '';
    const forward = await portForward(t, cluster.kubeconfig, cluster.dir, `pod/${pod}`, 9999);
    await assert.rejects(fetch(`http://127.0.0.1:${forward.local}/`, { signal: AbortSignal.timeout(10_000) }));
    await waitUntil(() => Promise.resolve(/error forwarding port 9999/.test(forward.output())), 10_000, `kubectl's error: ${forward.output()}`, 100);
  });
});
