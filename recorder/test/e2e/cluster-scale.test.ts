// The scale scenario at the size `npm test` can afford (the benchmark runs it at 200 nodes and 5,000 cameras:
// bench/scale.js): 20 RecorderNodes with hollow recorders (the recorder's own cluster code as each node's
// ServiceAccount), 500 Cameras created at once, two operators, on the real control plane.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pino } from 'pino';
import { HollowRecorder } from '../support/hollow-recorder.js';
import { runScaleScenario } from '../support/scale-scenario.js';

test('20 nodes, 500 cameras: balanced, all recording, a quiet steady state, recorders hear only of their cameras, failover and leader loss in time', { timeout: 480_000 }, async (t) => {
  const figures = await runScaleScenario(t, {
    nodes: 20,
    cameras: 500,
    steadyMs: 30_000,
    startFleet: async (namespace, identities) => {
      const log = pino({ level: 'error' });
      const recorders = identities.map(({ node, kubeconfig }) => new HollowRecorder(node, kubeconfig, namespace, log));
      for (const r of recorders) r.start();
      return {
        stats: async () => recorders.map((r) => r.stats()),
        silence: async (node) => recorders.find((r) => r.node === node)?.silence(),
        stop: async () => recorders.forEach((r) => r.stop()),
      };
    },
    progress: (msg) => t.diagnostic(msg),
  });
  t.diagnostic(JSON.stringify({ ...figures, recorders: undefined }));
  assert.ok(figures.perNodeMax - figures.perNodeMin <= 2, `balanced within 2 cameras per node: ${figures.perNodeMin}–${figures.perNodeMax}`);
  assert.deepEqual(figures.steady.operatorWritesBeyondLease, [], 'at rest the operators write only the leader Lease');
  // Each recorder writes only its heartbeat at rest: one renewal every 2 s (two requests at most: read and replace).
  assert.ok(figures.steady.busiestRecorderWritesPerMin <= 32, `the busiest recorder wrote ${figures.steady.busiestRecorderWritesPerMin.toFixed(1)} times a minute at rest`);
  for (const r of figures.recorders) {
    assert.equal(r.foreignCameraObjects, 0, `${r.node} received no other node's camera`);
    // Its own cameras (25) each arrive a few times (list, assignment, its own Recording report): far from the 500 × n
    // of a watch of every camera.
    assert.ok(r.cameraObjects <= 10 * Math.max(1, r.camerasSeen), `${r.node}: ${r.cameraObjects} camera objects for ${r.camerasSeen} cameras`);
  }
  // The goals are 20 s and 10 s (the benchmark measures them; the cluster end to end holds failover to 15–20 s at small
  // scale). Here, beside the rest of the suite on 2 cores, a bound that still fails when a node's cameras never move
  // or no replica takes over.
  assert.ok(figures.failover.seconds <= 30, `failover of ${figures.failover.cameras} cameras ${figures.failover.seconds.toFixed(1)} s after the last heartbeat`);
  assert.ok(figures.leaderLoss.firstChangeS <= 30, `the new leader's first change ${figures.leaderLoss.firstChangeS.toFixed(1)} s after the leader was killed`);
});
