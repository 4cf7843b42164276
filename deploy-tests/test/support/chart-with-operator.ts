// The chart installed into a fresh emulated cluster and vigil-operator started as it would run in its Pod: the
// Deployment's own args, the settings from the chart's ConfigMap, a token of the chart's operator ServiceAccount.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { ok, startEmulatedCluster, type EmulatedCluster } from '@vigil/testing/kube/emulated-cluster';
import { CHART_DIR } from './chart.js';
import { OperatorProcess } from './operator-process.js';

export const NS = 'vigil';

export interface ChartWithOperator {
  cluster: EmulatedCluster;
  operator: OperatorProcess;
  /** kubectl as the administrator; throws on a non-zero exit. */
  kubectl(args: string[], input?: string): Promise<string>;
}

export async function installChartWithOperator(t: TestContext): Promise<ChartWithOperator> {
  const cluster = await startEmulatedCluster(t);
  const kubectl = async (args: string[], input?: string) => ok(await cluster.kubectl(args, input !== undefined ? { input } : {}), args.join(' '));
  ok(await cluster.helm(['install', 'vigil', CHART_DIR, '-n', NS, '--create-namespace', '--set', 'image.repository=registry.example/vigil', '--wait', '--timeout', '90s']), 'helm install');
  const settingsFile = join(cluster.dir, 'settings.yaml');
  await writeFile(settingsFile, await kubectl(['-n', NS, 'get', 'cm', 'vigil-operator-settings', '-o', 'jsonpath={.data.settings\\.yaml}']));
  const chartArgs = JSON.parse(await kubectl(['-n', NS, 'get', 'deploy', 'vigil-operator', '-o', 'jsonpath={.spec.template.spec.containers[0].args}'])) as string[];
  const args = chartArgs.map((a) => (a.startsWith('--settings=') ? `--settings=${settingsFile}` : a.startsWith('--listen=') ? '--listen=127.0.0.1:0' : a));
  const operatorKubeconfig = await cluster.serviceAccountKubeconfig(NS, 'vigil-operator');
  const operator = await OperatorProcess.start(t, args, { KUBECONFIG: operatorKubeconfig, POD_NAMESPACE: NS, POD_NAME: 'vigil-operator-test' });
  return { cluster, operator, kubectl };
}
