// Benchmark "failover": the loopback cluster of the end-to-end tests (the real control plane, PostgreSQL, two operators, three
// recorder processes standing for their Pods, 12 GStreamer cameras). Ten kill -9 of a random recorder that records
// something: the archive gap of every camera it had (listing: end of its last segment on the dead node → start of the
// first on the new one) and silence → reassignment (the dead node's last Lease renewTime → the camera's lastMoveTime);
// then planned moves (/cluster/leave) and their gaps. Target: max gap ≤ 20 s after a kill, 0 s for planned moves.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sleep } from './lib/lifecycle.js';
import { envInt, percentile } from './lib/numbers.js';

export const description = 'failover: 10 kill -9 of a random recorder under 12 cameras — archive gaps and silence → reassignment; planned-move gaps';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const E2E = join(ROOT, 'recorder', 'dist', 'test', 'e2e');
const NODES = ['node-a', 'node-b', 'node-c'];

export const defaults = {
  failoverKills: envInt('VIGIL_BENCH_FAILOVER_KILLS', 10),
  failoverCameras: envInt('VIGIL_BENCH_FAILOVER_CAMERAS', 12),
  plannedMoves: envInt('VIGIL_BENCH_PLANNED_MOVES', 3),
};

function log(msg) {
  process.stderr.write(`[failover] ${msg}\n`);
}

/** node:test's TestContext as far as the fixture uses it: cleanups run at the end, last registered first. */
function benchContext() {
  const cleanups = [];
  return {
    name: 'bench-failover',
    after: (fn) => cleanups.push(fn),
    diagnostic: () => undefined,
    cleanup: async () => {
      for (const fn of cleanups.reverse()) await Promise.resolve(fn()).catch(() => undefined);
    },
  };
}

async function waitFor(cond, timeoutMs, what) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await cond()) return;
    await sleep(250);
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
}

export async function run(opts, emit) {
  const { startLoopbackCluster, cameraManifests } = await import(join(E2E, 'cluster-fixture.js'));
  const { archiveGap } = await import(join(E2E, 'cluster-archive.js'));
  const t = benchContext();
  try {
    const names = Array.from({ length: opts.failoverCameras }, (_, i) => `cam-${i + 1}`);
    log(`starting the loopback cluster: ${NODES.length} nodes, ${names.length} cameras`);
    const fx = await startLoopbackCluster(t, { nodes: NODES, cameraCount: names.length });
    const cameras = async () => new Map((await fx.cluster.cameras()).map((c) => [c.metadata.name, c]));
    const recordingAll = async (excluded = []) => {
      const cams = [...(await cameras()).values()];
      return cams.length === names.length && cams.every((c) => c.status?.phase === 'Recording' && c.status.recordingNode === c.status.node && !excluded.includes(c.status.node));
    };
    const file = join(fx.cluster.dir, 'cameras.yaml');
    await writeFile(file, cameraManifests(fx, names));
    const appliedAt = Date.now();
    await fx.cluster.kubectl('apply', '-n', fx.cluster.namespace, '-f', file);
    await waitFor(() => recordingAll(), 120_000, 'every camera recording');
    emit({ bench: 'failover', figure: 'apply_to_all_recording_ms', value: Date.now() - appliedAt, cameras: names.length });
    await sleep(10_000);

    const gaps = [];
    const reassign = [];
    for (let kill = 1; kill <= opts.failoverKills; kill++) {
      const before = await cameras();
      const loaded = NODES.filter((n) => [...before.values()].some((c) => c.status?.node === n));
      const node = loaded[Math.floor(Math.random() * loaded.length)];
      const victims = [...before.values()].filter((c) => c.status?.node === node).map((c) => c.metadata.name);
      const lease = await fx.cluster.coordination.readNamespacedLease({ name: `vigil-node-${node}`, namespace: fx.cluster.namespace });
      const killedAt = Date.now();
      fx.pods.get(node).proc.signal('SIGKILL');
      await waitFor(() => recordingAll([node]), 60_000, `${node}'s cameras recording elsewhere`);
      const lastRenew = new Date(lease.spec?.renewTime ?? killedAt).getTime();
      for (const c of (await cameras()).values()) {
        if (!victims.includes(c.metadata.name) || c.status?.lastMoveTime === undefined) continue;
        reassign.push((Date.parse(c.status.lastMoveTime) - lastRenew) / 1000);
      }
      await fx.startPod(node); // same disks: its open file is repaired and indexed
      await sleep(6000);
      for (const name of victims) {
        const { gapMs } = await archiveGap(fx, NODES.find((n) => n !== node), name, killedAt - 20_000, Date.now() - 2000);
        gaps.push(gapMs / 1000);
      }
      log(`kill ${kill}: ${node} (${victims.length} cameras) → gaps ${gaps.slice(-victims.length).map((g) => g.toFixed(1)).join(', ')} s`);
      await sleep(4000);
    }
    emit({ bench: 'failover', figure: 'kill_archive_gap_s', kills: opts.failoverKills, samples: gaps.length, p50: percentile(gaps, 50), p90: percentile(gaps, 90), max: Math.max(...gaps), target_max: 20 });
    emit({ bench: 'failover', figure: 'silence_to_reassignment_s', samples: reassign.length, min: Math.min(...reassign), p50: percentile(reassign, 50), max: Math.max(...reassign), target: '15-20' });

    const planned = [];
    for (let move = 1; move <= opts.plannedMoves; move++) {
      const before = await cameras();
      const loaded = NODES.filter((n) => [...before.values()].some((c) => c.status?.node === n));
      const node = loaded[move % loaded.length];
      const moving = [...before.values()].filter((c) => c.status?.node === node).map((c) => c.metadata.name);
      const leftAt = Date.now();
      const res = await fx.api(node, '/cluster/leave', { method: 'POST', body: {} });
      if (res.status !== 200) throw new Error(`leave on ${node}: ${res.status} ${JSON.stringify(res.body)}`);
      await sleep(4000);
      for (const name of moving) planned.push((await archiveGap(fx, NODES.find((n) => n !== node), name, leftAt - 10_000, Date.now() - 1000)).gapMs / 1000);
      await fx.api(NODES.find((n) => n !== node), '/cluster/add-learner', { method: 'POST', body: { node_name: node } });
      await fx.api(NODES.find((n) => n !== node), '/cluster/change-membership', { method: 'POST', body: { members: NODES } });
      await sleep(5000);
      log(`planned move ${move}: ${node} (${moving.length} cameras) → gaps ${planned.slice(-moving.length).map((g) => g.toFixed(1)).join(', ')} s`);
    }
    emit({ bench: 'failover', figure: 'planned_move_gap_s', moves: opts.plannedMoves, samples: planned.length, p50: percentile(planned, 50), max: Math.max(...planned), target_max: 0 });
  } finally {
    await t.cleanup();
  }
}
