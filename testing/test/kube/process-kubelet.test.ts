// The process kubelet: a Pod's container runs as a local process with its environment (downward API, Secret and
// ConfigMap keys), its volumes as files, a hostPath on the node's folder, an init container before it, and the token of
// its own ServiceAccount from the TokenRequest API, which it uses against kube-apiserver through the fault proxy. Its
// status is real (Ready from its probe), a crash is restarted with restartCount grown, deletion is graceful (SIGTERM,
// then the Pod removed), a lost node SIGKILLs the process, and a node cut off from the API takes its Pods' tokens along.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { CoordinationV1Api, CoreV1Api, KubeConfig } from '../../src/kube/client-node.js';
import type { V1Pod } from '@kubernetes/client-node';
import { startControlPlane } from '../../src/kube/control-plane/control-plane.js';
import type { ContainerImages } from '../../src/kube/kubelet/container-images.js';
import { waitUntil } from '../../src/processes.js';
import { tempDir } from '../../src/temp-dir.js';

const NS = 'kt';
const IMAGE = 'example.com/report-server:1';

/** The container's program: answers /ready, /report (what it was given), /whoami (the API, with its own token), /crash. */
const PROGRAM = `
const http = require('node:http'), https = require('node:https'), fs = require('node:fs');
const read = (f) => { try { return fs.readFileSync(f, 'utf8'); } catch (e) { return 'unreadable: ' + e.code; } };
fs.mkdirSync(process.env.DATA_DIR, { recursive: true });
fs.writeFileSync(process.env.DATA_DIR + '/written-by-app', process.env.POD_NAME);
const whoami = (res) => {
  const kc = JSON.parse(fs.readFileSync(process.env.KUBECONFIG, 'utf8'));
  const { server, 'certificate-authority': caFile } = kc.clusters[0].cluster;
  const req = https.request(server + '/apis/authentication.k8s.io/v1/selfsubjectreviews', { method: 'POST', ca: fs.readFileSync(caFile), headers: { authorization: 'Bearer ' + kc.users[0].user.token, 'content-type': 'application/json' }, timeout: 3000 }, (r) => {
    let t = ''; r.on('data', (c) => { t += c; }); r.on('end', () => res.end(JSON.stringify({ status: r.statusCode, user: JSON.parse(t).status?.userInfo?.username })));
  });
  req.on('error', (e) => res.end(JSON.stringify({ error: e.code ?? e.message })));
  req.on('timeout', () => req.destroy());
  req.end(JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' }));
};
http.createServer((req, res) => {
  if (req.url === '/ready') return res.end('ok');
  if (req.url === '/crash') { res.end('bye'); setTimeout(() => process.exit(3), 50); return; }
  if (req.url === '/whoami') return whoami(res);
  res.end(JSON.stringify({
    env: { POD_NAME: process.env.POD_NAME, NODE: process.env.NODE, PASSWORD: process.env.PASSWORD, GREETING: process.env.GREETING, SERVICE: process.env.KUBERNETES_SERVICE_HOST + ':' + process.env.KUBERNETES_SERVICE_PORT },
    files: { config: read(process.env.CONFIG_DIR + '/app.conf'), secret: read('/etc/app/secret/password'.replace('/etc/app/secret', process.env.SECRET_DIR)), init: read(process.env.DATA_DIR + '/init/hello'), namespace: read(process.env.SA_DIR + '/namespace'), ca: read(process.env.SA_DIR + '/ca.crt').slice(0, 27) },
  }));
}).listen(Number(process.env.PORT), '127.0.0.1', () => console.log('listening on', process.env.PORT));
process.on('SIGTERM', () => { console.log('got SIGTERM'); setTimeout(() => process.exit(0), 300); });
`;

/** The image as a local command; the adapter tells the program its loopback port (what a container would know as 8080). */
const IMAGES: ContainerImages = {
  [IMAGE]: {
    entrypoint: [process.execPath],
    prepare: (c) => ({ command: [...(c.command ?? [process.execPath]), ...c.args], env: { ...c.env, PORT: String(c.ports.get(8080)) } }),
  },
};

function pod(): V1Pod {
  return {
    metadata: { name: 'app', namespace: NS, labels: { app: 'report' } },
    spec: {
      nodeName: 'node-a', serviceAccountName: 'app', restartPolicy: 'Always', terminationGracePeriodSeconds: 5,
      initContainers: [{ name: 'prepare', image: IMAGE, command: ['sh', '-c', 'mkdir -p /data/init && echo "from init" > /data/init/hello'], volumeMounts: [{ name: 'data', mountPath: '/data' }] }],
      containers: [{
        name: 'app', image: IMAGE, args: ['-e', PROGRAM], ports: [{ name: 'http', containerPort: 8080 }],
        env: [
          { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
          { name: 'NODE', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } },
          { name: 'PASSWORD', valueFrom: { secretKeyRef: { name: 'app-secret', key: 'password' } } },
          { name: 'GREETING', valueFrom: { configMapKeyRef: { name: 'app-config', key: 'greeting' } } },
          { name: 'CONFIG_DIR', value: '/etc/app' },
          { name: 'SECRET_DIR', value: '/etc/app/secret' },
          { name: 'DATA_DIR', value: '/data' },
          { name: 'SA_DIR', value: '/var/run/secrets/kubernetes.io/serviceaccount' },
        ],
        readinessProbe: { httpGet: { path: '/ready', port: 'http' }, periodSeconds: 1, failureThreshold: 3 },
        volumeMounts: [{ name: 'config', mountPath: '/etc/app' }, { name: 'secret', mountPath: '/etc/app/secret', readOnly: true }, { name: 'data', mountPath: '/data' }],
      }],
      volumes: [
        { name: 'config', configMap: { name: 'app-config', items: [{ key: 'app.conf', path: 'app.conf' }] } },
        { name: 'secret', secret: { secretName: 'app-secret' } },
        { name: 'data', hostPath: { path: '/srv/app-data', type: 'DirectoryOrCreate' } },
      ],
    },
  };
}

function alive(pid: number | undefined): boolean {
  if (pid === undefined) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

test('the process kubelet runs a Pod as local processes, with real status, restarts, graceful deletion, node loss and cut-off', { timeout: 240_000 }, async (t) => {
  const dir = await tempDir(t, 'vigil-process-kubelet-');
  const cp = await startControlPlane(dir, { nodeMonitorGracePeriodSeconds: 6, images: IMAGES });
  t.after(() => cp.close());
  const kc = new KubeConfig();
  kc.loadFromFile(cp.adminKubeconfig);
  const core = kc.makeApiClient(CoreV1Api);
  await core.createNode({ body: { metadata: { name: 'node-a' } } });
  await core.createNamespace({ body: { metadata: { name: NS } } });
  await waitUntil(async () => core.readNamespacedServiceAccount({ name: 'default', namespace: NS }).then(() => true, () => false), 30_000, 'the namespace ready for Pods');
  await core.createNamespacedServiceAccount({ namespace: NS, body: { metadata: { name: 'app' } } });
  await core.createNamespacedSecret({ namespace: NS, body: { metadata: { name: 'app-secret' }, stringData: { password: 'p4ss' } } });
  await core.createNamespacedConfigMap({ namespace: NS, body: { metadata: { name: 'app-config' }, data: { greeting: 'hello', 'app.conf': 'setting = 1\n' } } });
  await core.createNamespacedPod({ namespace: NS, body: pod() });
  const read = (): Promise<V1Pod> => core.readNamespacedPod({ name: 'app', namespace: NS });
  const ready = async (): Promise<boolean> => (await read()).status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;
  await waitUntil(ready, 60_000, 'the Pod Ready');

  const handle = cp.kubelet.pod(NS, 'app');
  assert.ok(handle !== undefined);
  const port = handle.ports?.get(8080);
  const get = async (path: string): Promise<Record<string, unknown>> => (await (await fetch(`http://127.0.0.1:${port}${path}`)).json()) as Record<string, unknown>;

  await t.test('its environment, volumes, init container and token are the Pod’s', async () => {
    const report = (await get('/report')) as { env: Record<string, string>; files: Record<string, string> };
    assert.deepEqual(report.env, { POD_NAME: 'app', NODE: 'node-a', PASSWORD: 'p4ss', GREETING: 'hello', SERVICE: `127.0.0.1:${new URL(cp.url).port}` });
    assert.deepEqual(report.files, { config: 'setting = 1\n', secret: 'p4ss', init: 'from init\n', namespace: NS, ca: '-----BEGIN CERTIFICATE-----' });
    assert.equal(await readFile(join(cp.kubelet.hostPath('node-a', '/srv/app-data'), 'written-by-app'), 'utf8'), 'app', 'the hostPath is the node’s folder');
    assert.deepEqual(await get('/whoami'), { status: 201, user: `system:serviceaccount:${NS}:app` }, 'its own ServiceAccount, through the fault proxy');
  });

  await t.test('its status is real: Running, Ready, the container running, the init container completed, a Pod IP', async () => {
    const status = (await read()).status;
    assert.equal(status?.phase, 'Running');
    assert.equal(status?.podIP, '127.0.0.1');
    const app = status?.containerStatuses?.[0];
    assert.deepEqual([app?.name, app?.ready, app?.restartCount, app?.state?.running !== undefined], ['app', true, 0, true]);
    assert.deepEqual([status?.initContainerStatuses?.[0]?.state?.terminated?.exitCode, status?.initContainerStatuses?.[0]?.state?.terminated?.reason], [0, 'Completed']);
  });

  await t.test('the Node’s heartbeat is its Lease in kube-node-lease: renewed every few seconds, the Node stays Ready past the grace period', async () => {
    const coordination = kc.makeApiClient(CoordinationV1Api);
    const renewedAt = async () => new Date((await coordination.readNamespacedLease({ name: 'node-a', namespace: 'kube-node-lease' })).spec?.renewTime ?? 0).getTime();
    const first = await renewedAt();
    assert.ok(Date.now() - first < 10_000, 'renewed within the last heartbeat period');
    await new Promise((r) => setTimeout(r, 8000)); // more than the 6 s grace period, less than the minute between status posts
    assert.ok((await renewedAt()) > first, 'renewed again');
    assert.equal((await core.readNode({ name: 'node-a' })).status?.conditions?.find((c) => c.type === 'Ready')?.status, 'True');
  });

  await t.test('a crash is restarted by restartPolicy: restartCount 1, the last state says exit code 3', async () => {
    const pid = handle.container('app')?.pid;
    await get('/crash').catch(() => undefined);
    await waitUntil(async () => (await read()).status?.containerStatuses?.[0]?.restartCount === 1, 30_000, 'restartCount 1');
    await waitUntil(ready, 30_000, 'Ready again');
    const app = (await read()).status?.containerStatuses?.[0];
    assert.equal(app?.lastState?.terminated?.exitCode, 3);
    assert.notEqual(handle.container('app')?.pid, pid, 'a new process');
    assert.equal(alive(pid), false);
  });

  await t.test('a node cut off from the API: its Pod’s token is refused until it is reconnected', async () => {
    cp.kubelet.cutOffNode('node-a', 'refuse');
    assert.deepEqual(await get('/whoami'), { error: 'ECONNRESET' });
    cp.kubelet.reconnectNode('node-a');
    assert.equal((await get('/whoami'))['status'], 201);
  });

  await t.test('a lost node: its process is SIGKILLed and the Node goes Unknown; back, the container runs again', async () => {
    const pid = handle.container('app')?.pid;
    assert.ok(alive(pid));
    cp.kubelet.loseNode('node-a');
    await waitUntil(() => !alive(pid), 5_000, 'the process killed');
    assert.ok(!handle.container('app')?.runOutput().includes('got SIGTERM'), 'SIGKILL, not SIGTERM');
    await waitUntil(async () => (await core.readNode({ name: 'node-a' })).status?.conditions?.find((c) => c.type === 'Ready')?.status === 'Unknown', 60_000, 'node-a Unknown');
    cp.kubelet.reviveNode('node-a');
    await waitUntil(async () => (await read()).status?.containerStatuses?.[0]?.restartCount === 2 && (await ready()), 60_000, 'running again, restartCount 2');
  });

  await t.test('deletion is graceful: SIGTERM, the process ends, the kubelet removes the Pod', async () => {
    const app = handle.container('app');
    const pid = app?.pid;
    await core.deleteNamespacedPod({ name: 'app', namespace: NS });
    await waitUntil(async () => read().then(() => false, () => true), 30_000, 'the Pod gone');
    assert.match(app?.runOutput() ?? '', /got SIGTERM/);
    assert.equal(alive(pid), false);
  });
});
