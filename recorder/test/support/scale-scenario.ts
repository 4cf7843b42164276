// The scale scenario, shared by the scale benchmark (bench/scale.js: 200 nodes, 5,000 cameras, hollow recorders in child
// processes) and its small version in `npm test` (recorder/test/e2e/cluster-scale.test.ts: 20 nodes, 500 cameras, in
// process): the real control plane, two operators, one hollow recorder per RecorderNode (hollow-recorder.ts), the
// cameras created at once; then the figures a platform team asks for at scale: assignment time and spread, steady-state
// writes by user, watch traffic per recorder, a silent node's failover, a leader operator's loss.
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { API_VERSION, nodeLeaseName, type Camera } from '@vigil/crds';
import { forEachLimited, fromApiTime, Informer, KubeClient, loadKubeConfig, Resources, systemClock, type KubeObject, type Lease } from '@vigil/kube';
import { AuditLogTail, auditedWrites } from '@vigil/testing/kube/control-plane/audit-log';
import { startOperatorDeployment } from '@vigil/testing/kube/operator-deployment';
import type { OperatorProcess } from '@vigil/testing/kube/operator-process';
import { runHelm, runKubectl } from '@vigil/testing/kube/cli-runner';
import { ok } from '@vigil/testing/kube/kube-cluster';
import { REPO_ROOT, startTestCluster, type TestCluster } from '@vigil/testing/kube/test-cluster';
import { waitUntil } from '@vigil/testing/processes';
import { pino } from 'pino';
import type { HollowRecorderStats } from './hollow-recorder.js';
import { measureWriteCeiling, type WriteCeiling } from './api-write-ceiling.js';

/** The hollow recorders, wherever they run. */
export interface HollowFleet {
  stats(): Promise<HollowRecorderStats[]>;
  silence(node: string): Promise<void>;
  stop(): Promise<void>;
}

export interface ScaleOptions {
  nodes: number;
  cameras: number;
  /** Steady state measured for this long after every camera records. */
  steadyMs: number;
  /** Starts the hollow recorders of these nodes (each with a kubeconfig of its own ServiceAccount). */
  startFleet(namespace: string, nodes: Array<{ node: string; kubeconfig: string }>): Promise<HollowFleet>;
  /** CPU seconds and RSS of a process (the benchmark reads /proc; undefined: not measured). */
  sample?(pid: number): { cpuSeconds: number; rssMiB: number } | undefined;
  /** Other processes whose CPU the steady state reports (kube-apiserver, etcd), by name. */
  steadyPids?(): Record<string, number | undefined>;
  /** The chart's priority levels for the Leases and the operator (helm/vigil/templates/flowcontrol.yaml); default true. */
  flowControl?: boolean;
  /** Progress lines. */
  progress?(msg: string): void;
  /** How long every camera may take to reach Recording before the run fails (default 10 minutes). */
  rolloutTimeoutMs?: number;
  /** The baseline: this many Cameras written straight to the API before any node exists (api-write-ceiling.ts); none when absent. */
  writeCeilingCameras?: number;
}

type CameraObject = Camera & KubeObject;

export interface ScaleFigures {
  nodes: number;
  cameras: number;
  /** From the first create: all created, all assigned, all Recording (seconds). */
  createdS: number;
  assignedS: number;
  recordingS: number;
  perNodeMin: number;
  perNodeMax: number;
  /** The baseline of api-write-ceiling.ts, when asked for. */
  ceiling?: WriteCeiling;
  /** Writes kube-apiserver answered from the first create until every camera recorded: all, per second, and by who. */
  rollout: { writes: number; writesPerS: number; byWriter: Record<string, number> };
  /** Seconds from every camera Recording until the operators wrote only their Lease (their Events and checks done). */
  operatorTailS: number;
  steady: {
    seconds: number;
    /** Writes per minute: the operators (all of them), the recorders (all), the busiest recorder; and what the operators wrote beyond their Lease. */
    operatorWritesPerMin: number;
    operatorWritesBeyondLease: string[];
    recorderWritesPerMin: number;
    busiestRecorderWritesPerMin: number;
    operatorCpuPercent?: number;
    operatorRssMiB?: number;
    /** CPU of the processes `steadyPids` names, percent of one core. */
    cpuPercent: Record<string, number>;
    /** Per recorder and minute: objects and bytes its watches received (median and max over the recorders). */
    recorderObjectsPerMinMedian: number;
    recorderObjectsPerMinMax: number;
    recorderBytesPerMinMedian: number;
    recorderBytesPerMinMax: number;
  };
  recorders: HollowRecorderStats[];
  failover: { node: string; cameras: number; seconds: number };
  leaderLoss: { firstChangeS: number };
  /** Replicas that exited on their own (lost leadership) and were started again, over the whole run. */
  operatorRestarts: number;
}

const WRITE_CONCURRENCY = 32;
/**
 * How long the operators must write nothing but their Lease before the steady state begins: longer than the operator
 * holds back a RecorderNode's camera count (CAMERA_COUNT_INTERVAL_MS, 10 s, in operator/src/desired/recorder-node-status.ts),
 * or the last count of the rollout lands in the window (a fresh-clone run caught 15 of them there).
 */
const QUIET_MS = 11_000;
/** The operators' --node-settle (the default is 30 s): the nodes are online together, so the wait is only this long. */
const SETTLE_S = 10;

/**
 * The writes of a stretch of the run by who made them: the operators, the recorders, the kubelet (Node status and
 * Leases; the process kubelet writes as the administrator), the administrator (the benchmark's creates), the rest.
 */
function rolloutWrites(writes: ReadonlyArray<{ user: string; target: string }>, namespace: string, seconds: number): ScaleFigures['rollout'] {
  const byWriter: Record<string, number> = {};
  for (const w of writes) {
    const who = w.user === `system:serviceaccount:${namespace}:vigil-operator` ? 'operator'
      : w.user.startsWith(`system:serviceaccount:${namespace}:vigil-recorder-`) ? 'recorders'
        : /^(nodes\/status|pods\/status|leases coordination\.k8s\.io kube-node-lease\/)/.test(w.target) ? 'kubelet'
          : w.user.startsWith('system:') ? 'control plane' : 'administrator';
    byWriter[who] = (byWriter[who] ?? 0) + 1;
  }
  return { writes: writes.length, writesPerS: writes.length / seconds, byWriter };
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

export async function runScaleScenario(t: Pick<TestContext, 'after' | 'diagnostic' | 'name'>, opts: ScaleOptions): Promise<ScaleFigures> {
  const say = opts.progress ?? (() => undefined);
  // Straight to kube-apiserver (the fault proxy lives in this process, and no fault is asked for here), the kubelet
  // looks at what time made due (its hundreds of Nodes' heartbeats) every 2 s, and renews the Node Leases as a real
  // kubelet does (every 10 s, kube-controller-manager's grace 40 s; the tests' 5 s would be 40 writes a second at 200
  // Nodes, 20 more than a real cluster's): the harness must not be what the figures measure.
  const cluster: TestCluster = await startTestCluster(t as TestContext, { controlPlane: { faultProxy: false, kubeletSyncMs: 2000, nodeLeaseSeconds: 10, nodeMonitorGracePeriodSeconds: 40 } });
  const { namespace } = cluster;
  if (opts.flowControl !== false) {
    // As the chart installs them: the priority levels of the Leases and of the operator, rendered from the chart itself.
    const cli = { kubeconfig: cluster.adminKubeconfig, home: cluster.dir };
    const rendered = ok(await runHelm(['template', 'vigil', join(REPO_ROOT, 'helm/vigil'), '-n', namespace, '--show-only', 'templates/flowcontrol.yaml'], cli), 'helm template');
    ok(await runKubectl(['apply', '-f', '-'], { ...cli, input: rendered }), 'kubectl apply of the FlowSchema');
  }
  const admin = new KubeClient(loadKubeConfig({ KUBECONFIG: cluster.adminKubeconfig }));
  t.after(() => admin.close());
  let ceiling: WriteCeiling | undefined;
  if (opts.writeCeilingCameras !== undefined && opts.writeCeilingCameras > 0) {
    ceiling = await measureWriteCeiling(admin, namespace, opts.writeCeilingCameras, WRITE_CONCURRENCY);
    say(`baseline, nothing else running: ${ceiling.createsPerS.toFixed(0)} Camera creates/s, ${ceiling.statusAppliesPerS.toFixed(0)} status applies/s (${ceiling.inFlight} in flight)`);
  }
  const nodes = Array.from({ length: opts.nodes }, (_, i) => `node-${String(i + 1).padStart(3, '0')}`);
  await forEachLimited(nodes, 8, (n) => cluster.addNode(n));
  // Two replicas as the chart's Deployment runs them: one that exits (lost leadership) is started again and counted.
  const operators = await startOperatorDeployment(t as TestContext, cluster, ['op-1', 'op-2'], ['--log-level', 'info', '--node-settle', `${SETTLE_S}s`]);
  say(`${nodes.length} Nodes, 2 operators; waiting for every recorder identity`);
  const identities: Array<{ node: string; kubeconfig: string }> = [];
  await forEachLimited(nodes, 8, async (node) => {
    identities.push({ node, kubeconfig: (await cluster.nodeKubeconfig(node, { timeoutMs: 300_000 })).path });
  });
  const fleet = await opts.startFleet(namespace, identities);
  t.after(() => fleet.stop());

  // Everything about the cameras, as an administrator's watch sees it.
  const cams = new Informer<CameraObject>('scale-cameras', admin, Resources.cameras, pino({ level: 'silent' }), systemClock, { namespace });
  cams.start();
  t.after(() => cams.stop());
  const rns = new Informer<KubeObject & { status?: { online?: boolean; onlineSince?: string } }>('scale-recordernodes', admin, Resources.recorderNodes, pino({ level: 'silent' }), systemClock);
  rns.start();
  t.after(() => rns.stop());
  await waitUntil(() => rns.list().filter((r) => r.status?.online === true).length === nodes.length, 300_000, 'every RecorderNode online', 250);
  // A node online for less than --node-settle takes no rebalanced camera: apply once every node has settled, as an
  // operator would.
  say(`every RecorderNode online; waiting ${SETTLE_S + 1} s for the nodes to settle`);
  await new Promise((r) => setTimeout(r, (SETTLE_S + 1) * 1000));

  const names = Array.from({ length: opts.cameras }, (_, i) => `cam-${String(i + 1).padStart(5, '0')}`);
  const t0 = Date.now();
  let assignedAt: number | undefined;
  let recordingAt: number | undefined;
  const check = (): void => {
    const all = cams.list();
    if (all.length < names.length) return;
    if (assignedAt === undefined && all.every((c) => (c.status?.node ?? '') !== '')) assignedAt = Date.now();
    if (recordingAt === undefined && all.every((c) => c.status?.phase === 'Recording')) recordingAt = Date.now();
  };
  cams.onChange(check);
  await forEachLimited(names, WRITE_CONCURRENCY, async (name) => {
    await admin.create(Resources.cameras, { apiVersion: API_VERSION, kind: 'Camera', metadata: { name, namespace }, spec: { source: `rtsp://10.0.0.10:554/${name}` } } as CameraObject);
  });
  const createdS = (Date.now() - t0) / 1000;
  say(`${names.length} Cameras created in ${createdS.toFixed(1)} s`);
  const counting = setInterval(() => {
    const all = cams.list();
    say(`${all.length} cameras: ${all.filter((c) => (c.status?.node ?? '') !== '').length} assigned, ${all.filter((c) => c.status?.phase === 'Recording').length} Recording`);
  }, 15_000);
  await waitUntil(() => (check(), recordingAt !== undefined), opts.rolloutTimeoutMs ?? 600_000, 'every camera Recording', 250).finally(() => clearInterval(counting));
  const perNode = new Map(nodes.map((n) => [n, 0]));
  for (const c of cams.list()) perNode.set(c.status?.node ?? '', (perNode.get(c.status?.node ?? '') ?? 0) + 1);
  const counts = nodes.map((n) => perNode.get(n) ?? 0);
  say(`assigned in ${((assignedAt! - t0) / 1000).toFixed(1)} s, Recording in ${((recordingAt! - t0) / 1000).toFixed(1)} s; per node ${Math.min(...counts)}–${Math.max(...counts)}`);
  await new Promise((r) => setTimeout(r, 1000)); // the audit log is written as requests complete
  const rollout = rolloutWrites(await auditedWrites(cluster.controlPlane.auditLogPath, t0, recordingAt!), namespace, (recordingAt! - t0) / 1000);
  say(`from the first create until all Recording: ${rollout.writes} writes, ${rollout.writesPerS.toFixed(0)}/s (${Object.entries(rollout.byWriter).map(([k, v]) => `${k} ${v}`).join(', ')})`);

  // The rollout's tail: the operator writes its Events from a queue a few at a time, the Camera checks on their own,
  // and a RecorderNode's camera count alone at most every 10 s, so all three may still be writing when every camera
  // records. The steady state starts once the operators have written nothing but their Lease for QUIET_MS (an operator
  // that never stops writing fails the assertions on the window).
  const operatorUser = (u: string) => u === `system:serviceaccount:${namespace}:vigil-operator`;
  const beyondLease = (w: { user: string; target: string }) => operatorUser(w.user) && !w.target.startsWith(`leases coordination.k8s.io ${namespace}/vigil-operator`);
  const quietFrom = Date.now();
  const tail = await AuditLogTail.fromEnd(cluster.controlPlane.auditLogPath);
  let lastBeyondLease = quietFrom;
  await waitUntil(async () => {
    for (const w of await tail.newWrites()) if (beyondLease(w) && Number.isFinite(w.at)) lastBeyondLease = Math.max(lastBeyondLease, w.at);
    return Date.now() - lastBeyondLease >= QUIET_MS;
  }, 120_000, `the operators writing only their Lease for ${QUIET_MS / 1000} s`, 1000).catch(() => undefined);
  const tailS = (Date.now() - quietFrom) / 1000;
  say(`the operators wrote only their Lease ${tailS.toFixed(1)} s after every camera recorded`);

  // Steady state: nothing changes; who writes, what each recorder receives, what the operator costs.
  let leader: OperatorProcess | undefined;
  await waitUntil(async () => (leader = await operators.leader()) !== undefined, 60_000, 'a leader operator', 250);
  if (leader === undefined) throw new Error('no leader');
  say(`steady state for ${opts.steadyMs / 1000} s`);
  const before = await fleet.stats();
  const cpuBefore = opts.sample?.(leader.pid);
  const others = Object.entries(opts.steadyPids?.() ?? {}).flatMap(([name, pid]) => {
    const at = pid === undefined ? undefined : opts.sample?.(pid);
    return pid === undefined || at === undefined ? [] : [{ name, pid, before: at.cpuSeconds }];
  });
  const from = Date.now();
  let rssPeak = 0;
  while (Date.now() - from < opts.steadyMs) {
    await new Promise((r) => setTimeout(r, Math.min(2000, opts.steadyMs)));
    rssPeak = Math.max(rssPeak, opts.sample?.(leader.pid)?.rssMiB ?? 0);
  }
  const to = Date.now();
  const cpuAfter = opts.sample?.(leader.pid);
  const cpuPercent = Object.fromEntries(others.map((o) => [o.name, (((opts.sample?.(o.pid)?.cpuSeconds ?? o.before) - o.before) / ((to - from) / 1000)) * 100]));
  const after = await fleet.stats();
  await new Promise((r) => setTimeout(r, 1000)); // the audit log is written as requests complete
  const writes = await auditedWrites(cluster.controlPlane.auditLogPath, from, to);
  const minutes = (to - from) / 60_000;
  const recorderPrefix = `system:serviceaccount:${namespace}:vigil-recorder-`;
  const byRecorder = new Map<string, number>();
  for (const w of writes) if (w.user.startsWith(recorderPrefix)) byRecorder.set(w.user, (byRecorder.get(w.user) ?? 0) + 1);
  const operatorWrites = writes.filter((w) => operatorUser(w.user));
  const beforeOf = new Map(before.map((s) => [s.node, s]));
  const objectsPerMin = after.map((s) => (s.objects - (beforeOf.get(s.node)?.objects ?? 0)) / minutes);
  const bytesPerMin = after.map((s) => (s.bytes - (beforeOf.get(s.node)?.bytes ?? 0)) / minutes);
  const steady = {
    seconds: (to - from) / 1000,
    operatorWritesPerMin: operatorWrites.length / minutes,
    operatorWritesBeyondLease: [...new Set(operatorWrites.filter(beyondLease).map((w) => `${w.verb} ${w.target}`))],
    recorderWritesPerMin: [...byRecorder.values()].reduce((a, b) => a + b, 0) / minutes,
    busiestRecorderWritesPerMin: Math.max(0, ...byRecorder.values()) / minutes,
    ...(cpuBefore !== undefined && cpuAfter !== undefined ? { operatorCpuPercent: ((cpuAfter.cpuSeconds - cpuBefore.cpuSeconds) / ((to - from) / 1000)) * 100, operatorRssMiB: rssPeak } : {}),
    cpuPercent,
    recorderObjectsPerMinMedian: median(objectsPerMin),
    recorderObjectsPerMinMax: Math.max(...objectsPerMin),
    recorderBytesPerMinMedian: median(bytesPerMin),
    recorderBytesPerMinMax: Math.max(...bytesPerMin),
  };

  // One node silenced: from its last heartbeat until every camera it had records elsewhere.
  const victim = [...perNode].sort((a, b) => b[1] - a[1])[0]![0];
  const victims = cams.list().filter((c) => c.status?.node === victim).map((c) => c.metadata.name ?? '');
  await fleet.silence(victim);
  await new Promise((r) => setTimeout(r, 500)); // a renewal under way lands
  const lastBeat = fromApiTime((await admin.get<Lease>(Resources.leases, namespace, nodeLeaseName(victim)))?.spec?.renewTime ?? undefined) ?? Date.now();
  say(`${victim} silenced with ${victims.length} cameras`);
  await waitUntil(() => victims.every((v) => {
    const c = cams.get(`${namespace}/${v}`);
    return c !== undefined && c.status?.node !== victim && c.status?.phase === 'Recording';
  }), 120_000, `${victim}'s cameras Recording elsewhere`, 100);
  const failover = { node: victim, cameras: victims.length, seconds: (Date.now() - lastBeat) / 1000 };

  // The leader operator killed: until the other one has made its first change (a new camera assigned).
  await leader.stop('SIGKILL');
  const killedAt = Date.now();
  const probe = 'scale-after-leader-loss';
  await admin.create(Resources.cameras, { apiVersion: API_VERSION, kind: 'Camera', metadata: { name: probe, namespace }, spec: { source: `rtsp://10.0.0.10:554/${probe}` } } as CameraObject);
  await waitUntil(() => (cams.get(`${namespace}/${probe}`)?.status?.node ?? '') !== '', 120_000, 'the new leader assigns a camera', 100);
  const leaderLoss = { firstChangeS: (Date.now() - killedAt) / 1000 };
  const operatorRestarts = [...operators.restarts.values()].reduce((a, b) => a + b, 0) - 1; // the kill above is one

  return {
    nodes: nodes.length, cameras: names.length, createdS, assignedS: (assignedAt! - t0) / 1000, recordingS: (recordingAt! - t0) / 1000,
    perNodeMin: Math.min(...counts), perNodeMax: Math.max(...counts), ...(ceiling === undefined ? {} : { ceiling }), rollout, operatorTailS: tailS, steady, recorders: after, failover, leaderLoss, operatorRestarts,
  };
}
