// The operator's parts in this process, on the operator's ServiceAccount against the real control plane: caches synced,
// controllers not started — a controller's unit test runs its reconcile by hand and looks at what it wrote.
import type { TestContext } from 'node:test';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { KubeClient, loadKubeConfig, systemClock, type Clock } from '@vigil/kube';
import { startTestCluster, type TestCluster } from '@vigil/testing/kube/test-cluster';
import { waitUntil } from '@vigil/testing/processes';
import { loadSettings } from '../../src/config/settings.js';
import { parseLabelSelector } from '../../src/controllers/label-selector.js';
import type { NodeCredentials } from '../../src/controllers/camera-credentials.js';
import type { ControllerContext } from '../../src/controllers/context.js';
import { PodTemplates } from '../../src/controllers/pod-templates.js';
import { OperatorMetrics } from '../../src/metrics.js';
import { Operator } from '../../src/operator.js';

export interface InProcess {
  cluster: TestCluster;
  ctx: ControllerContext;
  templates: PodTemplates;
  /** The operator's one writer of the nodes' camera credentials Secrets (the assignment's reconcile needs it). */
  credentials: NodeCredentials;
  /** The administrator's client (the test playing the user, the recorders and the kubelet). */
  admin: KubeClient;
  signal: AbortSignal;
  /** Waits until the caches show what a write of the test did. */
  until(cond: () => boolean, what: string): Promise<void>;
}

export async function inProcessOperator(t: TestContext, opts: { nodeSelector?: string; nodeSilenceMs?: number; nodeSettleMs?: number; clock?: Clock; settingsYaml?: string } = {}): Promise<InProcess> {
  const cluster = await startTestCluster(t, opts.settingsYaml === undefined ? {} : { settingsYaml: opts.settingsYaml });
  const client = new KubeClient(loadKubeConfig({ KUBECONFIG: cluster.operatorKubeconfig }));
  const admin = new KubeClient(loadKubeConfig({ KUBECONFIG: cluster.adminKubeconfig }));
  t.after(() => {
    client.close();
    admin.close();
  });
  const operator = new Operator({
    client, namespace: cluster.namespace, identity: 'unit', settings: loadSettings(cluster.settingsFile), clock: opts.clock ?? systemClock,
    log: pino({ level: 'silent' }), metrics: new OperatorMetrics(new Registry()), nodeSilenceMs: opts.nodeSilenceMs ?? 15_000,
    ...(opts.nodeSettleMs === undefined ? {} : { nodeSettleMs: opts.nodeSettleMs }),
    nodeEligible: parseLabelSelector(opts.nodeSelector ?? ''),
  });
  operator.startInformers();
  t.after(() => operator.stopInformers());
  const stop = new AbortController();
  t.after(() => stop.abort());
  await operator.waitForSync(stop.signal);
  const ctx = operator.context;
  return {
    cluster, ctx, templates: new PodTemplates(ctx), credentials: operator.credentials, admin, signal: stop.signal,
    until: (cond, what) => waitUntil(cond, 10_000, what, 20),
  };
}
