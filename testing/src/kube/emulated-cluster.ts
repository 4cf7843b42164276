// Test support: a Kubernetes API emulator with real kubectl and helm bound to it (kubeconfig, private HOME), for tests of other workspaces.
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import type { CommandResult } from '../command.js';
import { runHelm, runKubectl, startKubeEmulator, type KubeEmulator } from './emulator.js';
import { tempDir } from '../temp-dir.js';

export { ok, runCommand, type CommandResult } from '../command.js';

export interface EmulatedCluster {
  emulator: KubeEmulator;
  /** A directory removed when the test ends (kubeconfigs, rendered files). */
  dir: string;
  /** The admin kubeconfig. */
  kubeconfig: string;
  kubectl(args: string[], opts?: { input?: string; kubeconfig?: string; timeoutMs?: number }): Promise<CommandResult>;
  helm(args: string[], opts?: { timeoutMs?: number }): Promise<CommandResult>;
  /** A kubeconfig that authenticates as a ServiceAccount with a token the emulator minted (TokenRequest). */
  serviceAccountKubeconfig(namespace: string, name: string): Promise<string>;
}

/** Starts an emulator for the test (closed when it ends) with kubectl and helm runners that use its admin kubeconfig. */
export async function startEmulatedCluster(t: TestContext, opts: { kubeletHeartbeatSeconds?: number } = {}): Promise<EmulatedCluster> {
  const dir = await tempDir(t, 'vigil-emulated-cluster-');
  const kubeconfig = join(dir, 'admin.kubeconfig');
  const emulator = await startKubeEmulator({ kubeconfigPath: kubeconfig, ...(opts.kubeletHeartbeatSeconds !== undefined ? { kubelet: { heartbeatSeconds: opts.kubeletHeartbeatSeconds } } : {}) });
  t.after(() => emulator.close());
  let accounts = 0;
  return {
    emulator,
    dir,
    kubeconfig,
    // A private HOME keeps kubectl's discovery cache and helm's state apart per test and out of the real home.
    kubectl: (args, o = {}) => runKubectl(args, { kubeconfig: o.kubeconfig ?? kubeconfig, home: dir, timeoutMs: o.timeoutMs ?? 30_000, ...(o.input !== undefined ? { input: o.input } : {}) }),
    helm: (args, o = {}) => runHelm(args, { kubeconfig, home: dir, timeoutMs: o.timeoutMs ?? 90_000 }),
    async serviceAccountKubeconfig(namespace, name) {
      const path = join(dir, `sa-${++accounts}-${name}.kubeconfig`);
      await emulator.writeKubeconfig(path, { token: await emulator.issueServiceAccountToken(namespace, name), namespace, user: `${namespace}-${name}` });
      return path;
    },
  };
}
