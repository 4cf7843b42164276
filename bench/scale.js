// Benchmark "scale": 200 RecorderNodes and 5,000 Cameras under one operator (a standby beside it) on the real Kubernetes
// control plane, as Kubernetes' own scalability tests use hollow nodes: each node's recorder is a hollow recorder (the
// recorder's own cluster code — watches, heartbeat every 2 s, Recording reports — as the node's own ServiceAccount, no
// media), run by a few child processes. The scenario (recorder/test/support/scale-scenario.ts) is the one `npm test`
// runs at 20 nodes and 500 cameras. Figures: assignment and Recording time and spread after the cameras are created at
// once; steady state (writes per minute by user from the audit log, the leader's CPU and RSS, kube-apiserver's and
// etcd's CPU, each recorder's watch traffic); a silent node's failover; a killed leader's successor's first change. The
// baseline in the same run: how many Camera creates and status applies a second the same kube-apiserver takes from one
// client before any node exists (api-write-ceiling.ts), and how many writes the rollout of the cameras took in all.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { runScaleScenario } from '../recorder/dist/test/support/scale-scenario.js';
import { clkTck, readRssKiB, readStat } from './lib/proc.js';
import { envInt } from './lib/numbers.js';

export const description = 'scale: 200 RecorderNodes (hollow recorders) and 5,000 Cameras on kube-apiserver — assign/Recording time and spread, steady-state writes and watch traffic, failover, leader loss';

const FLEET = fileURLToPath(new URL('./lib/hollow-fleet.js', import.meta.url));

export const defaults = {
  scaleNodes: envInt('VIGIL_BENCH_SCALE_NODES', 200),
  scaleCameras: envInt('VIGIL_BENCH_SCALE_CAMERAS', 5000),
  scaleSteadySeconds: envInt('VIGIL_BENCH_SCALE_STEADY', 300),
  scaleFleetProcesses: envInt('VIGIL_BENCH_SCALE_PROCESSES', 4),
  scaleCeilingCameras: envInt('VIGIL_BENCH_SCALE_CEILING', 1000, 0),
  /** Minutes every camera may take to reach Recording (the goal is the whole benchmark within 10). */
  scaleRolloutMinutes: envInt('VIGIL_BENCH_SCALE_ROLLOUT_MINUTES', 10),
  /** 0: without the chart's priority levels for the Leases and the operator (helm/vigil/templates/flowcontrol.yaml), to compare. */
  scaleFlowControl: envInt('VIGIL_BENCH_SCALE_FLOW_CONTROL', 1, 0) !== 0,
};

function log(msg) {
  process.stderr.write(`[scale] ${new Date().toISOString().slice(11, 19)} ${msg}\n`);
}

/** One child process running some of the hollow recorders; `ask` sends a command and resolves with its JSON answer. */
function startFleetProcess(namespace, nodes) {
  const child = spawn(process.execPath, [FLEET, JSON.stringify({ namespace, nodes })], { stdio: ['pipe', 'pipe', 'inherit'] });
  const waiting = [];
  createInterface({ input: child.stdout }).on('line', (line) => waiting.shift()?.(JSON.parse(line)));
  const next = () => new Promise((resolve) => waiting.push(resolve));
  const started = next();
  const ask = (command) => {
    const answer = next();
    child.stdin.write(`${command}\n`);
    return answer;
  };
  return { child, started, ask };
}

/** The pid of the control-plane binary whose command line names `dir` (kube-apiserver, etcd). */
function pidOf(binary, dir) {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmd = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      if (cmd[0]?.endsWith(`/${binary}`) && cmd.some((a) => a.includes(dir))) return Number(entry);
    } catch {
      // gone meanwhile
    }
  }
  return undefined;
}

function cpuSecondsOf(pid) {
  const stat = pid === undefined ? undefined : readStat(pid);
  return stat === undefined ? undefined : stat.ticks / clkTck();
}

export async function run(opts, emit) {
  const hooks = [];
  const t = { name: 'bench-scale', after: (fn) => hooks.push(fn), diagnostic: (msg) => log(msg) };
  const fleets = [];
  let controlPlanePids = {};
  try {
    const figures = await runScaleScenario(t, {
      nodes: opts.scaleNodes,
      cameras: opts.scaleCameras,
      steadyMs: opts.scaleSteadySeconds * 1000,
      flowControl: opts.scaleFlowControl,
      writeCeilingCameras: opts.scaleCeilingCameras,
      rolloutTimeoutMs: opts.scaleRolloutMinutes * 60_000,
      progress: log,
      steadyPids: () => controlPlanePids,
      sample: (pid) => {
        const cpuSeconds = cpuSecondsOf(pid);
        return cpuSeconds === undefined ? undefined : { cpuSeconds, rssMiB: (readRssKiB(pid) ?? 0) / 1024 };
      },
      startFleet: async (namespace, identities) => {
        const share = Math.ceil(identities.length / opts.scaleFleetProcesses);
        for (let i = 0; i < identities.length; i += share) fleets.push(startFleetProcess(namespace, identities.slice(i, i + share)));
        await Promise.all(fleets.map((f) => f.started));
        // kube-apiserver and etcd of this run (their CPU in the steady state): the ones whose command line names its folder.
        const dir = identities[0].kubeconfig.replace(/\/[^/]*$/, '');
        controlPlanePids = { kube_apiserver: pidOf('kube-apiserver', dir), etcd: pidOf('etcd', dir) };
        log(`${identities.length} hollow recorders in ${fleets.length} processes`);
        return {
          stats: async () => (await Promise.all(fleets.map((f) => f.ask('stats')))).flatMap((a) => a.stats),
          silence: async (node) => {
            await Promise.all(fleets.map((f) => f.ask(`silence ${node}`)));
          },
          stop: async () => {
            await Promise.all(fleets.map((f) => f.ask('stop').catch(() => undefined)));
          },
        };
      },
    });
    const round = (x, d = 1) => (x === undefined ? undefined : +x.toFixed(d));
    emit({
      bench: 'scale', figure: 'assign', flow_control: opts.scaleFlowControl, nodes: figures.nodes, cameras: figures.cameras, created_s: round(figures.createdS), assigned_s: round(figures.assignedS),
      recording_s: round(figures.recordingS), per_node_min: figures.perNodeMin, per_node_max: figures.perNodeMax, target: 'assigned ≤ 30 s, spread ≤ 2',
    });
    if (figures.ceiling !== undefined) {
      emit({
        bench: 'scale', figure: 'api_ceiling', cameras: figures.ceiling.cameras, in_flight: figures.ceiling.inFlight, creates_per_s: round(figures.ceiling.createsPerS, 0),
        status_applies_per_s: round(figures.ceiling.statusAppliesPerS, 0), note: 'baseline: one client, nothing else running, same control plane',
      });
    }
    const r = figures.rollout;
    emit({ bench: 'scale', figure: 'rollout_writes', writes: r.writes, writes_per_s: round(r.writesPerS, 0), by_writer: r.byWriter, note: 'first create until every camera Recording' });
    const s = figures.steady;
    emit({
      bench: 'scale', figure: 'steady', operator_tail_s: round(figures.operatorTailS), seconds: round(s.seconds, 0), operator_writes_per_min: round(s.operatorWritesPerMin), operator_writes_beyond_lease: s.operatorWritesBeyondLease.length,
      operator_writes_beyond_lease_sample: s.operatorWritesBeyondLease.slice(0, 6),
      recorder_writes_per_min: round(s.recorderWritesPerMin), busiest_recorder_writes_per_min: round(s.busiestRecorderWritesPerMin),
      operator_cpu_percent: round(s.operatorCpuPercent), operator_rss_mib: round(s.operatorRssMiB, 0),
      kube_apiserver_cpu_percent: round(s.cpuPercent.kube_apiserver), etcd_cpu_percent: round(s.cpuPercent.etcd), target: 'operator < 25 % of a core, < 300 MiB; no writes beyond its Lease',
    });
    emit({
      bench: 'scale', figure: 'watch_traffic', recorders: figures.recorders.length, objects_per_min_median: round(s.recorderObjectsPerMinMedian), objects_per_min_max: round(s.recorderObjectsPerMinMax),
      kib_per_min_median: round(s.recorderBytesPerMinMedian / 1024), kib_per_min_max: round(s.recorderBytesPerMinMax / 1024),
      foreign_camera_objects: figures.recorders.reduce((a, r) => a + r.foreignCameraObjects, 0), target: 'only its own cameras',
    });
    emit({ bench: 'scale', figure: 'failover', cameras: figures.failover.cameras, seconds_after_last_heartbeat: round(figures.failover.seconds), target: '≤ 20 s' });
    emit({ bench: 'scale', figure: 'leader_loss', first_change_s: round(figures.leaderLoss.firstChangeS), operator_restarts_before: figures.operatorRestarts, target: 'new leader ≤ 10 s (lease 6 s)' });
  } finally {
    for (const hook of hooks) await Promise.resolve(hook()).catch(() => undefined);
    for (const f of fleets) if (f.child.exitCode === null) f.child.kill('SIGKILL');
  }
}
