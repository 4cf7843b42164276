// Helpers the scenario tests share: a cluster with N nodes and their fake recorders, waiting on cameras, timings.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import type { Camera } from '@vigil/crds';
import { waitUntil } from '@vigil/testing/processes';
import { FakeRecorder } from './fake-recorders.js';
import { camerasYaml, startTestCluster, type TestCluster } from '@vigil/testing/kube/test-cluster';
import { startOperator, type OperatorProcess } from '@vigil/testing/kube/operator-process';

export interface Scenario {
  cluster: TestCluster;
  recorders: Map<string, FakeRecorder>;
  operator: OperatorProcess;
}

export async function startScenario(t: TestContext, nodes: Array<{ name: string; labels?: Record<string, string> }>, opts: { operatorArgs?: string[]; settingsYaml?: string } = {}): Promise<Scenario> {
  const cluster = await startTestCluster(t, opts.settingsYaml ? { settingsYaml: opts.settingsYaml } : {});
  const recorders = new Map<string, FakeRecorder>();
  for (const n of nodes) {
    await cluster.addNode(n.name, n.labels);
    recorders.set(n.name, new FakeRecorder(n.name, cluster));
  }
  t.after(() => {
    for (const r of recorders.values()) r.stop();
  });
  // The operator makes each node's ServiceAccount and heartbeat Lease; the recorders start on them.
  const operator = await startOperator(t, cluster, 'op-1', opts.operatorArgs ?? []);
  await Promise.all([...recorders.values()].map((r) => r.start()));
  // The cluster is up when every node has its RecorderNode and shows online (cameras come after).
  await waitUntil(async () => {
    const rns = await cluster.recorderNodes();
    return rns.length === nodes.length && rns.every((r) => r.status?.online === true);
  }, 60_000, 'every RecorderNode online');
  return { cluster, recorders, operator };
}

/** The fake recorders (each as its node's ServiceAccount) were never refused anything. */
export function assertRecordersAllowed(recorders: Iterable<FakeRecorder>): void {
  for (const r of recorders) assert.deepEqual(r.errors.filter((e) => /^403 /.test(e)), [], `the recorder rules refused ${r.node} something`);
}

/** kubectl apply -f of a cameras.yaml file, as a user does it. */
export async function applyCameras(cluster: TestCluster, names: string[], extra?: (name: string) => string): Promise<void> {
  const file = join(cluster.dir, `cameras-${names[0]}.yaml`);
  writeFileSync(file, camerasYaml(names, extra));
  await cluster.kubectl('apply', '-n', cluster.namespace, '-f', file);
}

export function byNode(cams: Camera[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const c of cams) (out[c.status?.node ?? ''] ??= []).push(c.metadata.name ?? '');
  for (const list of Object.values(out)) list.sort();
  return out;
}

export async function waitForCameras(cluster: TestCluster, cond: (cams: Camera[]) => boolean, timeoutMs: number, what: string): Promise<Camera[]> {
  let last: Camera[] = [];
  try {
    await waitUntil(async () => cond((last = await cluster.cameras())), timeoutMs, what, 200);
  } catch (err) {
    throw new Error(`${(err as Error).message}; cameras: ${JSON.stringify(last.map((c) => [c.metadata.name, c.status?.node, c.status?.phase, c.status?.handoverFrom]))}`);
  }
  return last;
}

export type ClusterEvent = Awaited<ReturnType<TestCluster['events']>>[number];

/** Events are written after the status they tell of, in the background: wait until `cond` holds for them. */
export async function waitForEvents(cluster: TestCluster, cond: (events: ClusterEvent[]) => boolean, what: string): Promise<ClusterEvent[]> {
  let events: ClusterEvent[] = [];
  await waitUntil(async () => cond((events = await cluster.events())), 30_000, what, 200);
  return events;
}

/** The Lease's renewTime in ms (what "the last renew" is measured from). */
export async function lastRenewOf(cluster: TestCluster, node: string): Promise<number> {
  const lease = await cluster.coordination.readNamespacedLease({ name: `vigil-node-${node}`, namespace: cluster.namespace });
  const t = lease.spec?.renewTime;
  assert.ok(t, 'the Lease has a renewTime');
  return new Date(t).getTime();
}

export function assertNoForbidden(operator: OperatorProcess): void {
  assert.deepEqual(operator.forbidden(), [], 'the operator\'s ServiceAccount was refused something (403)');
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
