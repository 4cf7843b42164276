// Test support for the recorder's cluster parts: kube-apiserver with the chart's RBAC, the identity the
// operator would give a node, and that node's ClusterView and heartbeat (its own code, as its own ServiceAccount); the
// test writes the rest of the cluster (RecorderNodes, other Leases, Cameras) as an administrator.
import type { TestContext } from 'node:test';
import { API_VERSION, type CameraSpecInput, type CameraStatus, type RecorderNodeStatus } from '@vigil/crds';
import { KubeClient, loadKubeConfig, Resources, toMicroTime, type KubeObject, type Lease } from '@vigil/kube';
import { startTestCluster, type TestCluster } from '@vigil/testing/kube/test-cluster';
import { waitUntil } from '@vigil/testing/processes';
import { ClusterLookups } from '../../src/cluster/cluster-lookups.js';
import { ClusterView } from '../../src/cluster/cluster-view.js';
import { Heartbeat } from '../../src/cluster/heartbeat.js';
import { connectToKubernetes, kubeClock } from '../../src/cluster/kube-connection.js';
import { systemClock } from '../../src/util/clock.js';
import { testLogger } from './fakes.js';

export interface NodeUnderTest {
  cluster: TestCluster;
  /** The administrator (the test playing the operator and the user). */
  admin: KubeClient;
  /** The recorder's own client (its node's ServiceAccount). */
  client: KubeClient;
  view: ClusterView;
  /** The node's on-demand reads (other nodes' cameras and heartbeats). */
  lookups: ClusterLookups;
  heartbeat: Heartbeat;
  logText(): string;
  /** A RecorderNode as the operator makes it, with a status. */
  recorderNode(name: string, opts?: { member?: boolean; left?: boolean; status?: RecorderNodeStatus }): Promise<void>;
  /** Another node's heartbeat: renewed at `renewMs`, with annotations (its report). The view does not watch it (lookups read it). */
  lease(node: string, renewMs: number | undefined, annotations?: Record<string, string>): Promise<void>;
  /** A Camera; when it is this node's (status.node or handoverFrom), waits until the view has it. */
  camera(name: string, spec?: Partial<CameraSpecInput>, status?: CameraStatus): Promise<void>;
  /** Waits until the view has seen `cond` come true. */
  until(cond: () => boolean, what: string): Promise<void>;
}

export async function nodeUnderTest(t: TestContext, node: string): Promise<NodeUnderTest> {
  const cluster = await startTestCluster(t);
  const admin = new KubeClient(loadKubeConfig({ KUBECONFIG: cluster.adminKubeconfig }));
  t.after(() => admin.close());
  const { path } = await cluster.nodeKubeconfig(node, { provision: true });
  const { client, namespace } = connectToKubernetes({ KUBECONFIG: path }, cluster.namespace, 'test');
  t.after(() => client.close());
  const { log, text } = testLogger('info');
  const view = new ClusterView(client, namespace, node, log, kubeClock(systemClock));
  view.start();
  t.after(() => view.stop());
  const heartbeat = new Heartbeat({ client, namespace, nodeName: node, clock: systemClock, log, report: () => ({ url: `http://${node}.test:9997`, version: '1.0.0', cameras: 0 }) });
  await waitUntil(() => view.synced, 10_000, 'the caches list');
  /** The view has caught up with a write (its version or a later one). */
  const seen = (informer: { get(key: string): KubeObject | undefined }, key: string, written: KubeObject) =>
    waitUntil(() => Number(informer.get(key)?.metadata.resourceVersion ?? 0) >= Number(written.metadata.resourceVersion), 10_000, `${key} in the view`, 20);
  const upsertStatus = async (type: typeof Resources.cameras | typeof Resources.recorderNodes, obj: KubeObject, status: unknown): Promise<KubeObject | undefined> => {
    if (status === undefined) return undefined;
    return admin.apply(type, { apiVersion: API_VERSION, kind: obj.kind, metadata: { name: obj.metadata.name, ...(obj.metadata.namespace ? { namespace: obj.metadata.namespace } : {}) }, status } as KubeObject, { fieldManager: 'vigil-operator', force: true, subresource: 'status' });
  };
  return {
    cluster, admin, client, view, heartbeat, logText: text, lookups: new ClusterLookups(client, namespace, systemClock),
    async recorderNode(name, opts = {}) {
      const rn = { apiVersion: API_VERSION, kind: 'RecorderNode', metadata: { name, ...(opts.left ? { annotations: { 'vigil.io/left': '2026-01-01T00:00:00Z' } } : {}) }, spec: { nodeName: name, member: opts.member ?? true } };
      const existing = await admin.get(Resources.recorderNodes, undefined, name);
      const created = existing ?? (await admin.create(Resources.recorderNodes, rn));
      await seen(view.recorderNodes, name, (await upsertStatus(Resources.recorderNodes, rn, opts.status)) ?? created);
    },
    async lease(other, renewMs, annotations) {
      const name = `vigil-node-${other}`;
      const body: Lease = { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name, namespace, ...(annotations ? { annotations } : {}) }, spec: { holderIdentity: other, leaseDurationSeconds: 15, ...(renewMs !== undefined ? { renewTime: toMicroTime(renewMs) } : {}) } };
      const existing = await admin.get<Lease>(Resources.leases, namespace, name);
      if (existing === undefined) await admin.create(Resources.leases, body);
      else await admin.replace(Resources.leases, { ...body, metadata: { ...body.metadata, resourceVersion: existing.metadata.resourceVersion } });
    },
    async camera(name, spec = {}, status) {
      const cam = { apiVersion: API_VERSION, kind: 'Camera', metadata: { name, namespace }, spec: { source: `rtsp://192.0.2.10/${name}`, ...spec } };
      await admin.create(Resources.cameras, cam as KubeObject);
      const written = await upsertStatus(Resources.cameras, cam as KubeObject, status);
      const cache = status?.node === node ? view.assigned : status?.handoverFrom === node ? view.recorded.handingOver : undefined;
      if (cache !== undefined && written !== undefined) await seen(cache, `${namespace}/${name}`, written);
    },
    until: (cond, what) => waitUntil(cond, 10_000, what, 20),
  };
}
