// A changed recorder ConfigMap rolls the recorder Pods one node at a time: the next Pod is replaced only when the
// previous node's new Pod is Ready and the node is online again.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { V1Pod } from '@kubernetes/client-node';
import { waitUntil } from '@vigil/testing/processes';
import { assertNoForbidden, assertRecordersAllowed, sleep, startScenario, waitForEvents } from '../support/scenario.js';

const HASH = 'vigil.io/template-hash';
const ready = (p: V1Pod) => !p.metadata?.deletionTimestamp && (p.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');

test('a template change rolls the Pods one at a time, waiting for Ready + online each time', async (t) => {
  // A short silence limit, so that "node-a is offline" takes seconds, not 15.
  const { cluster, recorders, operator } = await startScenario(t, [{ name: 'node-a' }, { name: 'node-b' }, { name: 'node-c' }], { operatorArgs: ['--node-silence', '8s'] });
  const pods = async () => (await cluster.core.listNamespacedPod({ namespace: cluster.namespace })).items;
  await waitUntil(async () => { const ps = await pods(); return ps.length === 3 && ps.every(ready); }, 30_000, 'three Ready recorder Pods');
  await waitUntil(async () => (await cluster.recorderNodes()).every((r) => r.status?.conditions?.find((c) => c.type === 'Rolled')?.status === 'True'), 30_000, 'Rolled=True everywhere');
  // (each node's template differs, by its node name)
  const oldHash = new Map((await pods()).map((p) => [p.spec?.nodeName, p.metadata?.annotations?.[HASH]]));

  // node-a's recorder is down (its node offline) when the configuration changes.
  recorders.get('node-a')!.stopHeartbeat();
  await waitUntil(async () => (await cluster.recorderNodes()).find((r) => r.metadata.name === 'node-a')?.status?.online === false, 30_000, 'node-a offline');

  // Sample the Pods from now on: at no moment may two nodes be mid-roll.
  const samples: Array<{ at: number; state: Record<string, string> }> = [];
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      const ps = await pods();
      const state: Record<string, string> = {};
      for (const n of ['node-a', 'node-b', 'node-c']) {
        const p = ps.find((x) => x.spec?.nodeName === n);
        state[n] = !p ? 'missing' : p.metadata?.annotations?.[HASH] === oldHash.get(n) ? 'old' : ready(p) ? 'new-ready' : 'new-starting';
      }
      samples.push({ at: Date.now(), state });
      await sleep(100);
    }
  })();
  t.after(() => { sampling = false; });

  await cluster.core.replaceNamespacedConfigMap({ name: 'vigil-recorder', namespace: cluster.namespace, body: { metadata: { name: 'vigil-recorder' }, data: { 'config.yaml': 'cluster:\n  enabled: true\nlog_level: debug\n' } } });

  // node-a is replaced first; its new Pod becomes Ready, but node-a is not online: nobody else is touched.
  await waitUntil(() => samples.at(-1)?.state['node-a'] === 'new-ready', 30_000, 'node-a\'s new Pod Ready');
  await sleep(4000);
  assert.deepEqual([samples.at(-1)?.state['node-b'], samples.at(-1)?.state['node-c']], ['old', 'old'], 'nothing else rolls while node-a is offline');
  const rn = (await cluster.recorderNodes()).find((r) => r.metadata.name === 'node-a');
  assert.equal(rn?.status?.conditions?.find((c) => c.type === 'Rolled')?.status, 'True');

  // node-a's recorder is back: the roll goes on, one node at a time, to the end.
  recorders.get('node-a')!.startHeartbeat();
  await recorders.get('node-a')!.renew();
  await waitUntil(() => Object.values(samples.at(-1)?.state ?? {}).every((s) => s === 'new-ready'), 60_000, 'every Pod rolled');
  sampling = false;
  await sampler;

  for (const { at, state } of samples) {
    const midRoll = Object.entries(state).filter(([, s]) => s === 'missing' || s === 'new-starting');
    assert.ok(midRoll.length <= 1, `two nodes mid-roll at ${new Date(at).toISOString()}: ${JSON.stringify(state)}`);
  }
  // The order: node-a, then the other two one after the other.
  const firstNew = (n: string) => samples.find((s) => s.state[n] !== 'old')?.at ?? Infinity;
  const order = ['node-a', 'node-b', 'node-c'].sort((x, y) => firstNew(x) - firstNew(y));
  assert.equal(order[0], 'node-a');
  const readyAt = (n: string) => samples.find((s) => s.state[n] === 'new-ready')?.at ?? Infinity;
  assert.ok(firstNew(order[2]!) >= readyAt(order[1]!), 'the third node rolled only after the second was Ready');
  await waitForEvents(cluster, (es) => es.filter((e) => e.reason === 'Rolling').length >= 3, 'three Rolling Events');
  assert.equal((await cluster.events()).filter((e) => e.reason === 'Rolling').length, 3);
  await waitUntil(async () => (await cluster.recorderNodes()).every((r) => r.status?.conditions?.find((c) => c.type === 'Rolled')?.status === 'True'), 30_000, 'Rolled=True everywhere again');
  assertNoForbidden(operator);
  assertRecordersAllowed(recorders.values());
});
