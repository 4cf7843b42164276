// Test support: a Kubernetes API emulator with real kubectl and helm bound to it (kubeconfig, private HOME), for tests of other workspaces.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { startKubeEmulator, type KubeEmulator } from './kube-emulator.js';
import { helmPath, kubectlPath } from './kube-tools.js';
import { tempDir } from './temp-dir.js';

export interface CommandResult {
  code: number;
  stdout: string;
  stderr: string;
}

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

/** Runs a program; never throws for a non-zero exit (the result carries the code and both outputs). */
export function runCommand(file: string, args: string[], opts: { env?: NodeJS.ProcessEnv; input?: string; timeoutMs?: number } = {}): Promise<CommandResult> {
  return new Promise((resolve) => {
    const child = execFile(file, args, { env: opts.env ?? process.env, timeout: opts.timeoutMs ?? 60_000, maxBuffer: 32 * 1024 * 1024 }, (err, stdout, stderr) => {
      const code = err === null ? 0 : typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : 1;
      resolve({ code, stdout: String(stdout), stderr: String(stderr) + (err !== null && (err as { killed?: boolean }).killed ? `\n(killed after ${opts.timeoutMs ?? 60_000} ms)` : '') });
    });
    child.stdin?.end(opts.input);
  });
}

/** The command's stdout; throws with both outputs when it did not exit 0. */
export function ok(result: CommandResult, what: string): string {
  if (result.code !== 0) throw new Error(`${what} exited ${result.code}\nstdout:\n${result.stdout}\nstderr:\n${result.stderr}`);
  return result.stdout;
}

/** Starts an emulator for the test (closed when it ends) with kubectl and helm runners that use its admin kubeconfig. */
export async function startEmulatedCluster(t: TestContext, opts: { kubeletHeartbeatSeconds?: number } = {}): Promise<EmulatedCluster> {
  const dir = await tempDir(t, 'vigil-emulated-cluster-');
  const kubeconfig = join(dir, 'admin.kubeconfig');
  const emulator = await startKubeEmulator({ kubeconfigPath: kubeconfig, ...(opts.kubeletHeartbeatSeconds !== undefined ? { kubelet: { heartbeatSeconds: opts.kubeletHeartbeatSeconds } } : {}) });
  t.after(() => emulator.close());
  // A private HOME keeps kubectl's discovery cache and helm's state apart per test and out of the real home.
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: dir,
    KUBECONFIG: kubeconfig,
    HELM_CACHE_HOME: join(dir, '.cache/helm'),
    HELM_CONFIG_HOME: join(dir, '.config/helm'),
    HELM_DATA_HOME: join(dir, '.local/share/helm'),
  };
  let accounts = 0;
  return {
    emulator,
    dir,
    kubeconfig,
    kubectl: (args, o = {}) => runCommand(kubectlPath(), args, { env: { ...env, KUBECONFIG: o.kubeconfig ?? kubeconfig }, ...(o.input !== undefined ? { input: o.input } : {}), timeoutMs: o.timeoutMs ?? 30_000 }),
    helm: (args, o = {}) => runCommand(helmPath(), args, { env, timeoutMs: o.timeoutMs ?? 90_000 }),
    async serviceAccountKubeconfig(namespace, name) {
      const path = join(dir, `sa-${++accounts}-${name}.kubeconfig`);
      await emulator.writeKubeconfig(path, { token: await emulator.issueServiceAccountToken(namespace, name), namespace, user: `${namespace}-${name}` });
      return path;
    },
  };
}
