// Test support: a real Kubernetes control plane (control-plane/) with the real kubectl and helm bound to it (kubeconfig,
// private HOME), for tests of other workspaces.
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { ok, type CommandResult } from '../command.js';
import { waitUntil } from '../processes.js';
import { runHelm, runKubectl } from './cli-runner.js';
import { startControlPlane, type ControlPlane, type ControlPlaneOptions } from './control-plane/control-plane.js';
import { tempDir } from '../temp-dir.js';

export { ok, runCommand, type CommandResult } from '../command.js';

export interface KubeCluster {
  controlPlane: ControlPlane;
  /** A directory removed when the test ends (kubeconfigs, rendered files). */
  dir: string;
  /** The admin kubeconfig. */
  kubeconfig: string;
  kubectl(args: string[], opts?: { input?: string; kubeconfig?: string; timeoutMs?: number }): Promise<CommandResult>;
  helm(args: string[], opts?: { timeoutMs?: number }): Promise<CommandResult>;
  /** A kubeconfig that authenticates as a ServiceAccount with a token from the TokenRequest API. */
  serviceAccountKubeconfig(namespace: string, name: string): Promise<string>;
  /**
   * `kubectl create namespace` and, as on any cluster, a wait until kube-controller-manager has made its `default`
   * ServiceAccount: before that the API server refuses a Pod that names none.
   */
  createNamespace(name: string, labels?: Record<string, string>): Promise<void>;
}

/** Starts a control plane for the test (stopped when it ends) with kubectl and helm runners that use its admin kubeconfig. */
export async function startKubeCluster(t: TestContext, opts: ControlPlaneOptions = {}): Promise<KubeCluster> {
  const dir = await tempDir(t, 'vigil-kube-cluster-');
  const controlPlane = await startControlPlane(dir, opts);
  t.after(() => controlPlane.close());
  t.diagnostic(`control plane up in ${controlPlane.startMs} ms`);
  const kubeconfig = controlPlane.adminKubeconfig;
  let accounts = 0;
  return {
    controlPlane,
    dir,
    kubeconfig,
    // A private HOME keeps kubectl's discovery cache and helm's state apart per test and out of the real home.
    kubectl: (args, o = {}) => runKubectl(args, { kubeconfig: o.kubeconfig ?? kubeconfig, home: dir, timeoutMs: o.timeoutMs ?? 30_000, ...(o.input !== undefined ? { input: o.input } : {}) }),
    helm: (args, o = {}) => runHelm(args, { kubeconfig, home: dir, timeoutMs: o.timeoutMs ?? 90_000 }),
    async createNamespace(name, labels = {}) {
      ok(await runKubectl(['create', 'namespace', name], { kubeconfig, home: dir }), `kubectl create namespace ${name}`);
      for (const [key, value] of Object.entries(labels)) ok(await runKubectl(['label', 'namespace', name, `${key}=${value}`], { kubeconfig, home: dir }), `kubectl label namespace ${name}`);
      await waitUntil(async () => (await runKubectl(['get', 'serviceaccount', 'default', '-n', name], { kubeconfig, home: dir })).code === 0, 30_000, `the default ServiceAccount of namespace ${name}`, 250);
    },
    async serviceAccountKubeconfig(namespace, name) {
      const path = join(dir, `sa-${++accounts}-${name}.kubeconfig`);
      await controlPlane.writeKubeconfig(path, { token: await controlPlane.issueServiceAccountToken(namespace, name), namespace, user: `${namespace}-${name}` });
      return path;
    },
  };
}
