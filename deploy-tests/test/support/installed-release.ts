// The chart installed into the control plane with `helm install`, and vigil-operator running as a real process the way its
// Pod would: the Deployment's own arguments, the settings from the chart's ConfigMap, a token of the chart's operator
// ServiceAccount (kube-apiserver enforces the chart's RBAC). Plus a stand-in for a recorder's heartbeat.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { ok, startKubeCluster, type KubeCluster } from '@vigil/testing/kube/kube-cluster';
import { waitUntil } from '@vigil/testing/processes';
import { CHART_DIR, writeValues } from './chart.js';
import { OperatorProcess } from './operator-process.js';

export const NS = 'vigil';

export interface InstalledRelease {
  cluster: KubeCluster;
  operator: OperatorProcess;
  /** kubectl as the cluster admin; fails the test on a non-zero exit. */
  kubectl(args: string[], input?: string): Promise<string>;
}

/** `helm install vigil` with these values into namespace vigil, then the operator. */
export async function installWithOperator(t: TestContext, values: Record<string, unknown> = {}): Promise<InstalledRelease> {
  const cluster = await startKubeCluster(t);
  const kubectl = async (args: string[], input?: string) => ok(await cluster.kubectl(args, input !== undefined ? { input } : {}), args.join(' '));
  const file = await writeValues(cluster.dir, { image: { repository: 'registry.example/vigil' }, ...values });
  ok(await cluster.helm(['install', 'vigil', CHART_DIR, '-n', NS, '--create-namespace', '-f', file]), 'helm install');
  const settingsFile = join(cluster.dir, 'settings.yaml');
  await writeFile(settingsFile, await kubectl(['-n', NS, 'get', 'cm', 'vigil-operator-settings', '-o', 'jsonpath={.data.settings\\.yaml}']));
  const chartArgs = JSON.parse(await kubectl(['-n', NS, 'get', 'deploy', 'vigil-operator', '-o', 'jsonpath={.spec.template.spec.containers[0].args}'])) as string[];
  const args = chartArgs.map((a) => (a.startsWith('--settings=') ? `--settings=${settingsFile}` : a.startsWith('--listen=') ? '--listen=127.0.0.1:0' : a));
  const operatorKubeconfig = await cluster.serviceAccountKubeconfig(NS, 'vigil-operator');
  const operator = await OperatorProcess.start(t, args, { KUBECONFIG: operatorKubeconfig, POD_NAMESPACE: NS, POD_NAME: 'vigil-operator-test' });
  return { cluster, operator, kubectl };
}

/** A Node as kubectl applies it. */
export async function addNode(release: InstalledRelease, name: string): Promise<void> {
  await release.kubectl(['apply', '-f', '-'], `apiVersion: v1\nkind: Node\nmetadata:\n  name: ${name}\n  labels:\n    kubernetes.io/hostname: ${name}\n`);
}

/**
 * Renews `vigil-node-<node>` every 2 s as the node's own ServiceAccount `vigil-recorder-<node>`, which the operator makes
 * (server-side apply of the Lease the operator created, as a recorder does); stopped when the test ends. `errors`
 * collects refused renewals after the first accepted one (which waits for the node's identity).
 */
export async function heartbeat(t: TestContext, release: InstalledRelease, node: string): Promise<{ errors: string[]; stop(): void }> {
  let token = '';
  let stopped = false;
  /** One renewal; the refusal's status and body, or undefined when it was accepted. */
  const renewOnce = async (): Promise<string | undefined> => {
    const now = new Date().toISOString().replace('Z', '000Z');
    const lease = { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: `vigil-node-${node}`, namespace: NS }, spec: { holderIdentity: node, leaseDurationSeconds: 15, renewTime: now } };
    const res = await release.cluster.controlPlane.fetch(`/apis/coordination.k8s.io/v1/namespaces/${NS}/leases/vigil-node-${node}?fieldManager=test-recorder&force=true`, {
      method: 'PATCH', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/apply-patch+yaml' }, body: JSON.stringify(lease), signal: AbortSignal.timeout(5000),
    });
    return res.ok ? undefined : `${res.status} ${await res.text()}`;
  };
  // The operator makes the node's identity (ServiceAccount, Role, bindings, the Lease) once it sees the Node: the first
  // renewal waits for all of it, as a recorder Pod does (the operator makes the Pod only then).
  let last: string | undefined;
  await waitUntil(async () => {
    token = token || (await release.cluster.controlPlane.issueServiceAccountToken(NS, `vigil-recorder-${node}`).catch(() => ''));
    return token !== '' && (last = await renewOnce()) === undefined;
  }, 30_000, `the identity of ${node}`).catch((err: Error) => {
    throw new Error(`${err.message}; last refusal: ${last ?? 'none'}`);
  });
  const errors: string[] = [];
  const renew = async () => {
    if (stopped) return;
    // A renewal the connection lost counts as refused, unless the test is over (its control plane is going away).
    const refused = await renewOnce().catch((err: Error) => (stopped ? undefined : `no answer: ${err.message}`));
    if (refused !== undefined) errors.push(refused);
  };
  const timer = setInterval(() => void renew(), 2000);
  const stop = () => {
    stopped = true;
    clearInterval(timer);
  };
  t.after(stop);
  return { errors, stop };
}
