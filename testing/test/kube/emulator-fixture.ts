// Test support for the emulator's tests: an emulator per test with its kubeconfig and a private HOME, and kubectl/helm runners.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import { startKubeEmulator, type KubeEmulator, type KubeEmulatorOptions } from '../../src/kube-emulator.js';
import { helmPath, kubectlPath } from '../../src/kube-tools.js';
import { tempDir } from '../../src/temp-dir.js';

/** testing/test/kube/fixtures (the compiled test runs from testing/dist/test/kube/). */
export const FIXTURES = fileURLToPath(new URL('../../../test/kube/fixtures/', import.meta.url));

export interface CommandResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface EmulatorFixture {
  emulator: KubeEmulator;
  dir: string;
  kubeconfig: string;
  kubectl(args: string[], opts?: { input?: string; kubeconfig?: string; timeoutMs?: number }): Promise<CommandResult>;
  helm(args: string[], opts?: { timeoutMs?: number }): Promise<CommandResult>;
  /** fetch against the emulator's plain-HTTP URL with the admin token (or `token`). */
  request(method: string, path: string, body?: unknown, opts?: { token?: string; contentType?: string; accept?: string }): Promise<{ status: number; body: unknown; headers: Headers }>;
}

function run(file: string, args: string[], env: NodeJS.ProcessEnv, input: string | undefined, timeoutMs: number): Promise<CommandResult> {
  return new Promise((resolve) => {
    const child = execFile(file, args, { env, timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      const code = err === null ? 0 : typeof (err as NodeJS.ErrnoException & { code?: unknown }).code === 'number' ? (err as unknown as { code: number }).code : 1;
      resolve({ code, stdout: String(stdout), stderr: String(stderr) });
    });
    if (input !== undefined) child.stdin?.end(input);
    else child.stdin?.end();
  });
}

export async function startEmulatorFixture(t: TestContext, opts: KubeEmulatorOptions = {}): Promise<EmulatorFixture> {
  const dir = await tempDir(t, 'vigil-kube-emulator-');
  const kubeconfig = join(dir, 'kubeconfig');
  const emulator = await startKubeEmulator({ ...opts, kubeconfigPath: kubeconfig });
  t.after(() => emulator.close());
  // A private HOME keeps kubectl's discovery cache and helm's state out of the real home and apart per test.
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: dir,
    KUBECONFIG: kubeconfig,
    HELM_CACHE_HOME: join(dir, '.cache/helm'),
    HELM_CONFIG_HOME: join(dir, '.config/helm'),
    HELM_DATA_HOME: join(dir, '.local/share/helm'),
  };
  return {
    emulator,
    dir,
    kubeconfig,
    kubectl: (args, o = {}) => run(kubectlPath(), args, { ...env, KUBECONFIG: o.kubeconfig ?? kubeconfig }, o.input, o.timeoutMs ?? 90_000),
    helm: (args, o = {}) => run(helmPath(), args, env, undefined, o.timeoutMs ?? 180_000),
    request: async (method, path, body, o = {}) => {
      const headers: Record<string, string> = { authorization: `Bearer ${o.token ?? emulator.adminToken}` };
      if (o.accept !== undefined) headers.accept = o.accept;
      if (body !== undefined) headers['content-type'] = o.contentType ?? 'application/json';
      const res = await fetch(`${emulator.url}${path}`, {
        method,
        headers,
        ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
        signal: AbortSignal.timeout(60_000),
      });
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        // not JSON: keep the text
      }
      return { status: res.status, body: parsed, headers: res.headers };
    },
  };
}

/** Fails with the command's output when it did not exit 0. */
export function ok(result: CommandResult, what: string): string {
  if (result.code !== 0) throw new Error(`${what} exited ${result.code}\nstdout:\n${result.stdout}\nstderr:\n${result.stderr}`);
  return result.stdout;
}
