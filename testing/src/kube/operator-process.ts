// vigil-operator as a real child process: started with the operator's kubeconfig and settings, its JSON log lines
// kept, its listener found from its start line; stopped with SIGTERM or kill -9 and always reaped.
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { REPO_ROOT, type TestCluster } from './test-cluster.js';
import { waitUntil } from '../processes.js';
import { parsePrometheusText, type Exposition } from '../prometheus-text.js';

export const OPERATOR_BIN = join(REPO_ROOT, 'operator/bin/vigil-operator.js');

export class OperatorProcess {
  readonly lines: Array<Record<string, unknown>> = [];
  /** The JSON lines as written (a key written twice survives only here). */
  readonly rawLines: string[] = [];
  readonly stderr: string[] = [];
  port = 0;
  exitCode: number | null | undefined;
  readonly exited: Promise<number | null>;

  constructor(readonly identity: string, readonly child: ChildProcess) {
    let buffered = '';
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      buffered += chunk;
      let nl: number;
      while ((nl = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        try {
          const obj = JSON.parse(line) as Record<string, unknown>;
          this.lines.push(obj);
          this.rawLines.push(line);
          if (typeof obj.listen === 'string' && this.port === 0) this.port = Number(obj.listen.slice(obj.listen.lastIndexOf(':') + 1));
        } catch {
          this.stderr.push(line);
        }
      }
    });
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => this.stderr.push(chunk));
    this.exited = new Promise((resolve) => child.once('exit', (code) => {
      this.exitCode = code;
      resolve(code);
    }));
  }

  get pid(): number {
    return this.child.pid ?? 0;
  }

  async metrics(): Promise<Exposition> {
    const res = await fetch(`http://127.0.0.1:${this.port}/metrics`, { signal: AbortSignal.timeout(5000) });
    return parsePrometheusText(await res.text());
  }

  async isLeader(): Promise<boolean> {
    return (await this.metrics()).value('vigil_operator_leader') === 1;
  }

  /** Log lines that carry an HTTP 403 from the API (RBAC refused something). */
  forbidden(): string[] {
    return this.lines.map((l) => JSON.stringify(l)).filter((l) => /: 403 |"status":403|Forbidden/.test(l));
  }

  logText(): string {
    return this.lines.map((l) => JSON.stringify(l)).join('\n') + this.stderr.join('');
  }

  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
    if (this.exitCode === undefined) this.child.kill(signal);
    return this.exited;
  }
}

/** What the chart's operator Deployment sets in NODE_OPTIONS with its default resources. */
const CHART_HEAP_LIMIT = '--max-old-space-size=128';

export async function startOperator(t: TestContext, cluster: TestCluster, identity: string, extraArgs: string[] = [], kubeconfig: string = cluster.operatorKubeconfig): Promise<OperatorProcess> {
  // The heap limit the chart gives the operator (half its 256 MiB memory limit: templates/_helpers.tpl
  // vigil.heapLimitMiB), then VIGIL_TEST_OPERATOR_NODE_OPTIONS: options for the operators' Node.js alone, e.g.
  // `--cpu-prof --cpu-prof-dir=DIR` (a profile of each operator that exits by itself, as one that lost its leadership does).
  const nodeOptions = [CHART_HEAP_LIMIT, ...(process.env.VIGIL_TEST_OPERATOR_NODE_OPTIONS?.split(' ').filter((o) => o !== '') ?? [])];
  const child = spawn(process.execPath, [
    ...nodeOptions, OPERATOR_BIN, '--settings', cluster.settingsFile, '--namespace', cluster.namespace, '--identity', identity,
    '--listen', '127.0.0.1:0', '--log-level', 'debug', ...extraArgs,
  ], { env: { ...process.env, KUBECONFIG: kubeconfig, POD_NAME: '', POD_NAMESPACE: '' }, stdio: ['ignore', 'pipe', 'pipe'] });
  const proc = new OperatorProcess(identity, child);
  t.after(async () => {
    if (proc.exitCode === undefined) {
      child.kill('SIGKILL');
      await proc.exited;
    }
    // VIGIL_TEST_OPERATOR_LOGS=DIR keeps every operator's log lines for a look after the run.
    const keep = process.env.VIGIL_TEST_OPERATOR_LOGS;
    if (keep) writeFileSync(join(keep, `${t.name.replace(/[^A-Za-z0-9]+/g, '-').slice(0, 40)}-${identity}.log`), proc.logText());
  });
  // Generous: loading client-node alone costs over a second of CPU, and the machine may be busy.
  await waitUntil(() => proc.port !== 0 || proc.exitCode !== undefined, 60_000, `${identity} to listen`);
  if (proc.exitCode !== undefined) throw new Error(`${identity} exited with ${proc.exitCode}: ${proc.logText()}`);
  return proc;
}
