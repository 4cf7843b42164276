// Benchmark "operator": vigil-operator with 500 Cameras on 10 RecorderNodes on the real Kubernetes control plane (kube-apiserver, etcd): time to
// assign all after `kubectl apply`; silence → reassignment of the ~50 cameras of a dead node (distribution, from the
// Failover Events' eventTime and the Lease's last renewTime); the operator's CPU and RSS idle and while converging.
import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CoordinationV1Api, CoreV1Api, CustomObjectsApi, KubeConfig } from '@kubernetes/client-node';
import { runKubectl } from '@vigil/testing/kube/cli-runner';
import { startControlPlane } from '@vigil/testing/kube/control-plane/control-plane';
import { makeTempDir, removeTempDir, sleep } from './lib/lifecycle.js';
import { clkTck, readRssKiB, readStat } from './lib/proc.js';
import { envInt } from './lib/numbers.js';

export const description = 'operator: 500 Cameras on 10 RecorderNodes on kube-apiserver — assign-all time, failover distribution of a dead node\'s cameras, operator CPU/RSS idle and converging';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const OPERATOR_BIN = join(ROOT, 'operator', 'bin', 'vigil-operator.js');
const CRD_DIR = join(ROOT, 'helm', 'vigil', 'crds');
const NS = 'vigil';

export const defaults = {
  operatorCameras: envInt('VIGIL_BENCH_OPERATOR_CAMERAS', 500),
  operatorNodes: envInt('VIGIL_BENCH_OPERATOR_NODES', 10),
  idleSeconds: envInt('VIGIL_BENCH_OPERATOR_IDLE', 20),
  keep: false,
};

function log(msg) {
  process.stderr.write(`[operator] ${msg}\n`);
}

/** CPU (percent of one core) and peak RSS of `pid` over a window, sampled every 500 ms. */
async function measure(pid, until) {
  const start = readStat(pid);
  const t0 = performance.now();
  let peak = readRssKiB(pid);
  const rss = [];
  while (!(await until())) {
    await sleep(500);
    const r = readRssKiB(pid);
    rss.push(r);
    peak = Math.max(peak, r);
  }
  const end = readStat(pid);
  const seconds = (performance.now() - t0) / 1000;
  const cpu = (((end?.ticks ?? 0) - (start?.ticks ?? 0)) / clkTck() / seconds) * 100;
  return { seconds, cpuPercent: cpu, rssPeakMiB: peak / 1024, rssLastMiB: (rss.at(-1) ?? peak) / 1024 };
}

function quantile(sorted, q) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

export async function run(opts, emit) {
  const dir = await makeTempDir('vigil-bench-operator-');
  const controlPlane = await startControlPlane(dir);
  const kubeconfigPath = controlPlane.adminKubeconfig;
  const heartbeats = [];
  let operator;
  try {
    const kubectl = async (...args) => {
      const r = await runKubectl(args, { kubeconfig: kubeconfigPath, home: dir, timeoutMs: 300_000 });
      if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')}: exit ${r.code}: ${r.stderr}`);
      return r.stdout;
    };
    const kc = new KubeConfig();
    kc.loadFromFile(kubeconfigPath);
    const core = kc.makeApiClient(CoreV1Api);
    const coordination = kc.makeApiClient(CoordinationV1Api);
    const custom = kc.makeApiClient(CustomObjectsApi);
    await kubectl('apply', '-f', CRD_DIR);
    await kubectl('wait', '--for=condition=Established', '--timeout=20s', 'crd/cameras.vigil.io', 'crd/recordernodes.vigil.io');
    await core.createNamespace({ body: { metadata: { name: NS } } });
    await core.createNamespacedConfigMap({ namespace: NS, body: { metadata: { name: 'vigil-recorder' }, data: { 'config.yaml': 'cluster:\n  enabled: true\n' } } });
    const nodes = Array.from({ length: opts.operatorNodes }, (_, i) => `node-${String(i + 1).padStart(2, '0')}`);
    const lastRenew = new Map();
    const renew = async (node) => {
      const name = `vigil-node-${node}`;
      const now = new Date();
      try {
        const lease = await coordination.readNamespacedLease({ name, namespace: NS });
        lease.spec = { ...lease.spec, renewTime: now };
        await coordination.replaceNamespacedLease({ name, namespace: NS, body: lease });
      } catch (err) {
        if (err.code !== 404) throw err;
        await coordination.createNamespacedLease({ namespace: NS, body: { metadata: { name }, spec: { holderIdentity: node, leaseDurationSeconds: 15, renewTime: now } } });
      }
      lastRenew.set(node, now.getTime());
    };
    for (const node of nodes) {
      await core.createNode({ body: { metadata: { name: node } } });
      await renew(node);
      heartbeats.push({ node, timer: setInterval(() => void renew(node).catch(() => undefined), 2000) });
    }
    const settings = join(dir, 'settings.yaml');
    await writeFile(settings, 'recorder:\n  image: vigil/recorder:bench\n  configMap: vigil-recorder\n  rbac: {clusterRole: vigil-vigil-recorder, role: vigil-recorder}\n  secrets: {apiTokens: vigil-api-tokens, clusterToken: vigil-cluster-token}\n');
    operator = spawn(process.execPath, [OPERATOR_BIN, '--settings', settings, '--namespace', NS, '--identity', 'bench', '--listen', '127.0.0.1:0', '--log-level', 'warn'], {
      env: { ...process.env, KUBECONFIG: kubeconfigPath }, stdio: ['ignore', 'ignore', 'inherit'],
    });
    const rns = async () => (await custom.listClusterCustomObject({ group: 'vigil.io', version: 'v1alpha1', plural: 'recordernodes' })).items;
    const cameras = async () => (await custom.listNamespacedCustomObject({ group: 'vigil.io', version: 'v1alpha1', namespace: NS, plural: 'cameras' })).items;
    const until = async (cond, timeoutMs) => {
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        if (await cond()) return true;
        await sleep(200);
      }
      throw new Error('timed out');
    };
    await until(async () => (await rns()).filter((r) => r.status?.online).length === nodes.length, 60_000);
    log(`${nodes.length} RecorderNodes online; idle for ${opts.idleSeconds} s`);
    const idleEnd = Date.now() + opts.idleSeconds * 1000;
    const idle = await measure(operator.pid, async () => Date.now() >= idleEnd);
    emit({ bench: 'operator', figure: 'idle', nodes: nodes.length, cameras: 0, cpu_percent: +idle.cpuPercent.toFixed(2), rss_mib: +idle.rssPeakMiB.toFixed(1) });

    // kubectl apply of 500 Cameras → every one has a node.
    const names = Array.from({ length: opts.operatorCameras }, (_, i) => `cam-${String(i + 1).padStart(4, '0')}`);
    const file = join(dir, 'cameras.yaml');
    await writeFile(file, names.map((n) => `apiVersion: vigil.io/v1alpha1\nkind: Camera\nmetadata:\n  name: ${n}\nspec:\n  source: rtsp://10.0.0.10:554/${n}\n`).join('---\n'));
    const t0 = performance.now();
    let assignedAt;
    const applying = kubectl('apply', '-n', NS, '-f', file).then(() => performance.now() - t0);
    const converge = await measure(operator.pid, async () => {
      const cams = await cameras();
      if (cams.length === names.length && cams.every((c) => c.status?.node)) {
        assignedAt ??= performance.now();
        return true;
      }
      return false;
    });
    const applyMs = await applying;
    const perNode = {};
    for (const c of await cameras()) perNode[c.status.node] = (perNode[c.status.node] ?? 0) + 1;
    const counts = Object.values(perNode);
    emit({
      bench: 'operator', figure: 'assign_all', cameras: names.length, nodes: nodes.length, kubectl_apply_s: +(applyMs / 1000).toFixed(2),
      assign_all_s: +((assignedAt - t0) / 1000).toFixed(2), after_apply_s: +((assignedAt - t0 - applyMs) / 1000).toFixed(2), per_node_min: Math.min(...counts), per_node_max: Math.max(...counts),
      cpu_percent: +converge.cpuPercent.toFixed(1), rss_mib: +converge.rssPeakMiB.toFixed(1),
    });
    log(`assigned ${names.length} cameras in ${((assignedAt - t0) / 1000).toFixed(2)} s (kubectl apply ${(applyMs / 1000).toFixed(2)} s); per node ${Math.min(...counts)}–${Math.max(...counts)}`);

    const settledEnd = Date.now() + opts.idleSeconds * 1000;
    const idleLoaded = await measure(operator.pid, async () => Date.now() >= settledEnd);
    emit({ bench: 'operator', figure: 'idle', nodes: nodes.length, cameras: names.length, cpu_percent: +idleLoaded.cpuPercent.toFixed(2), rss_mib: +idleLoaded.rssPeakMiB.toFixed(1) });

    // A node dies: its ~50 cameras move.
    const dead = nodes[0];
    const hb = heartbeats.find((h) => h.node === dead);
    clearInterval(hb.timer);
    await sleep(300);
    const silentSince = lastRenew.get(dead);
    const victims = (await cameras()).filter((c) => c.status.node === dead).map((c) => c.metadata.name);
    const failover = await measure(operator.pid, async () => {
      const cams = await cameras();
      return victims.every((v) => { const c = cams.find((x) => x.metadata.name === v); return c.status?.node && c.status.node !== dead; });
    });
    await sleep(1000);
    const events = (await core.listNamespacedEvent({ namespace: NS })).items.filter((e) => e.reason === 'Failover');
    const seconds = events.map((e) => (new Date(e.eventTime ?? e.lastTimestamp).getTime() - silentSince) / 1000).sort((a, b) => a - b);
    emit({
      bench: 'operator', figure: 'failover', cameras: victims.length, events: seconds.length,
      min_s: +seconds[0].toFixed(2), p50_s: +quantile(seconds, 0.5).toFixed(2), p95_s: +quantile(seconds, 0.95).toFixed(2), max_s: +seconds.at(-1).toFixed(2),
      cpu_percent: +failover.cpuPercent.toFixed(1), rss_mib: +failover.rssPeakMiB.toFixed(1), target: '15–20 s',
    });
    log(`failover of ${victims.length} cameras: ${seconds[0].toFixed(2)}–${seconds.at(-1).toFixed(2)} s after the last renew (median ${quantile(seconds, 0.5).toFixed(2)} s)`);
  } finally {
    for (const h of heartbeats) clearInterval(h.timer);
    if (operator && operator.exitCode === null) {
      operator.kill('SIGTERM');
      await new Promise((r) => operator.once('exit', r));
    }
    await controlPlane.close();
    if (!opts.keep) await removeTempDir(dir);
  }
}
