// Test support for the emulator's tests: an emulator per test with its kubeconfig and a private HOME, and kubectl/helm runners.
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import { runHelm, runKubectl, startKubeEmulator, type CommandResult, type KubeEmulator, type KubeEmulatorOptions } from '../../../src/kube/emulator.js';
import { tempDir } from '../../../src/temp-dir.js';

/** testing/test/kube/emulator/fixtures (the compiled test runs from testing/dist/test/kube/emulator/). */
export const FIXTURES = fileURLToPath(new URL('../../../../test/kube/emulator/fixtures/', import.meta.url));

export type { CommandResult };

export interface EmulatorFixture {
  emulator: KubeEmulator;
  dir: string;
  kubeconfig: string;
  kubectl(args: string[], opts?: { input?: string; kubeconfig?: string; timeoutMs?: number }): Promise<CommandResult>;
  helm(args: string[], opts?: { timeoutMs?: number }): Promise<CommandResult>;
  /** fetch against the emulator's plain-HTTP URL with the admin token (or `token`). */
  request(method: string, path: string, body?: unknown, opts?: { token?: string; contentType?: string; accept?: string }): Promise<{ status: number; body: unknown; headers: Headers }>;
}

export async function startEmulatorFixture(t: TestContext, opts: KubeEmulatorOptions = {}): Promise<EmulatorFixture> {
  const dir = await tempDir(t, 'vigil-kube-emulator-');
  const kubeconfig = join(dir, 'kubeconfig');
  const emulator = await startKubeEmulator({ ...opts, kubeconfigPath: kubeconfig });
  t.after(() => emulator.close());
  return {
    emulator,
    dir,
    kubeconfig,
    // A private HOME keeps kubectl's discovery cache and helm's state out of the real home and apart per test.
    kubectl: (args, o = {}) => runKubectl(args, { kubeconfig: o.kubeconfig ?? kubeconfig, home: dir, ...(o.input !== undefined ? { input: o.input } : {}), ...(o.timeoutMs !== undefined ? { timeoutMs: o.timeoutMs } : {}) }),
    helm: (args, o = {}) => runHelm(args, { kubeconfig, home: dir, ...(o.timeoutMs !== undefined ? { timeoutMs: o.timeoutMs } : {}) }),
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
