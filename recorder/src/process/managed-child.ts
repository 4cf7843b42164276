// A spawned media process that is always reaped: stop() escalates SIGTERM → SIGKILL and waits for exit.
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable } from 'node:stream';

export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface ManagedChildOptions {
  command: string;
  args: string[];
  onStdout(chunk: Buffer): void;
  onStderrLine(line: string): void;
  /** Grace between SIGTERM and SIGKILL on stop(). */
  killGraceMs?: number;
}

export class ManagedChild {
  readonly #proc: ChildProcessByStdio<null, Readable, Readable>;
  readonly exited: Promise<ExitInfo>;
  #exit: ExitInfo | undefined;
  readonly #killGraceMs: number;

  constructor(opts: ManagedChildOptions) {
    this.#killGraceMs = opts.killGraceMs ?? 2000;
    this.#proc = spawn(opts.command, opts.args, { stdio: ['ignore', 'pipe', 'pipe'] });
    this.exited = new Promise<ExitInfo>((resolve) => {
      // 'close' fires after exit *and* after stdio closed, so no output is lost after it.
      this.#proc.on('close', (code, signal) => {
        this.#exit = { code, signal };
        resolve(this.#exit);
      });
      this.#proc.on('error', (err) => {
        opts.onStderrLine(`spawn failed: ${err.message}`);
        this.#exit = { code: -1, signal: null };
        resolve(this.#exit);
      });
    });
    this.#proc.stdout.on('data', opts.onStdout);
    let pending = '';
    this.#proc.stderr.setEncoding('utf8');
    this.#proc.stderr.on('data', (text: string) => {
      pending += text;
      let nl: number;
      while ((nl = pending.search(/[\r\n]/)) >= 0) {
        const line = pending.slice(0, nl).trim();
        pending = pending.slice(nl + 1);
        if (line !== '') opts.onStderrLine(line);
      }
      if (pending.length > 8192) pending = pending.slice(-8192);
    });
    this.#proc.stdout.on('error', () => undefined);
    this.#proc.stderr.on('error', () => undefined);
  }

  get pid(): number | undefined {
    return this.#proc.pid;
  }

  get running(): boolean {
    return this.#exit === undefined;
  }

  /** Ask politely, then insist; resolves once the process has been reaped. */
  async stop(): Promise<ExitInfo> {
    if (this.#exit !== undefined) return this.#exit;
    this.#proc.kill('SIGTERM');
    const timer = setTimeout(() => this.#proc.kill('SIGKILL'), this.#killGraceMs);
    try {
      return await this.exited;
    } finally {
      clearTimeout(timer);
    }
  }
}
