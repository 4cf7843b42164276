// vigil-operator as a real child process (the chart's flags, a ServiceAccount kubeconfig): JSON log lines kept, its
// listener found from its start line, stopped with SIGTERM when the test ends.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { waitUntil } from '@vigil/testing/processes';
import { REPO_ROOT } from './chart.js';

export const OPERATOR_BIN = join(REPO_ROOT, 'operator/bin/vigil-operator.js');

export class OperatorProcess {
  readonly lines: Array<Record<string, unknown>> = [];
  readonly output: string[] = [];
  port = 0;
  readonly exited: Promise<number | null>;

  private constructor(readonly child: ChildProcess) {
    let buffered = '';
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      buffered += chunk;
      for (let nl = buffered.indexOf('\n'); nl >= 0; nl = buffered.indexOf('\n')) {
        const line = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        this.output.push(line);
        try {
          const entry = JSON.parse(line) as Record<string, unknown>;
          this.lines.push(entry);
          if (typeof entry.listen === 'string' && this.port === 0) this.port = Number(entry.listen.slice(entry.listen.lastIndexOf(':') + 1));
        } catch {
          // not a log line
        }
      }
    });
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => this.output.push(chunk));
    this.exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  }

  /** Starts `vigil-operator ARGS` with KUBECONFIG; stopped (SIGTERM, then SIGKILL) when the test ends. */
  static async start(t: TestContext, args: string[], env: NodeJS.ProcessEnv): Promise<OperatorProcess> {
    const child = spawn(process.execPath, [OPERATOR_BIN, ...args], { env: { PATH: process.env.PATH, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    const operator = new OperatorProcess(child);
    t.after(() => operator.stop());
    await waitUntil(() => operator.port > 0 || child.exitCode !== null, 20_000, 'the operator to listen');
    if (operator.port === 0) throw new Error(`vigil-operator exited ${child.exitCode}:\n${operator.output.join('\n')}`);
    return operator;
  }

  /** SIGTERM and wait; SIGKILL when it does not end within 10 s. Resolves to the exit code. */
  async stop(): Promise<number | null> {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      this.child.kill('SIGTERM');
      const timer = setTimeout(() => this.child.kill('SIGKILL'), 10_000);
      await this.exited;
      clearTimeout(timer);
    }
    return this.exited;
  }

  /** Log lines that carry an HTTP 403 from the API (RBAC refused something). */
  forbidden(): string[] {
    return this.output.filter((l) => /\b403\b|Forbidden|forbidden/.test(l));
  }

  async metrics(): Promise<string> {
    const res = await fetch(`http://127.0.0.1:${this.port}/metrics`, { signal: AbortSignal.timeout(5000) });
    return res.text();
  }
}
