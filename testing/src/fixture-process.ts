// Test support: one child process of a fixture (a server, a publisher) that is always stopped and reaped, even when the test process dies.
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { Socket } from 'node:net';

const KILL_GRACE_MS = 3_000;
const TAIL_BYTES = 8_192;

/** Every fixture process still alive; SIGKILLed when this process exits. */
const live = new Set<ChildProcess>();
let hooked = false;

function hookExit(): void {
  if (hooked) return;
  hooked = true;
  process.on('exit', () => {
    for (const child of live) {
      try {
        child.kill('SIGKILL');
      } catch {
        // already gone
      }
    }
  });
}

export class FixtureProcess {
  readonly child: ChildProcess;
  /** Resolves with the exit code (or null after a signal) once the process is gone. */
  readonly exited: Promise<number | null>;
  private stdoutText = '';
  private stderrText = '';
  private stopping: Promise<void> | undefined;
  private done = false;

  constructor(command: string, args: readonly string[], options: SpawnOptions = {}) {
    hookExit();
    // stdin stays an open pipe: fixtures that watch it exit when this process dies.
    this.child = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'], ...options });
    live.add(this.child);
    this.child.stdout?.setEncoding('utf8');
    this.child.stdout?.on('data', (text: string) => {
      this.stdoutText = (this.stdoutText + text).slice(-TAIL_BYTES);
    });
    this.child.stderr?.setEncoding('utf8');
    this.child.stderr?.on('data', (text: string) => {
      this.stderrText = (this.stderrText + text).slice(-TAIL_BYTES);
    });
    this.child.stdin?.on('error', () => undefined);
    this.exited = new Promise((resolve) => {
      this.child.once('error', (err) => {
        this.stderrText += `\ncannot run ${command}: ${err.message}`;
        this.done = true;
        live.delete(this.child);
        resolve(-1);
      });
      this.child.once('exit', (code) => {
        this.done = true;
        live.delete(this.child);
        resolve(code);
      });
    });
    // A forgotten fixture must not keep the test process alive; the exit hook kills it.
    this.child.unref();
    for (const stream of [this.child.stdin, this.child.stdout, this.child.stderr]) {
      if (stream instanceof Socket) stream.unref();
    }
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get running(): boolean {
    return !this.done;
  }

  /** The last few KiB the process wrote to stdout / stderr. */
  get stdout(): string {
    return this.stdoutText;
  }

  get stderr(): string {
    return this.stderrText;
  }

  /** SIGTERM, SIGKILL after 3 s; resolves once the process has exited. Idempotent. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      if (this.done) return;
      // Awaiting the exit keeps this process alive (the child is otherwise unref'd): with nothing else pending, the
      // event loop would end before the exit arrives, and node:test fails a test whose promise is still pending.
      this.child.ref();
      this.child.kill('SIGTERM');
      const timer = setTimeout(() => this.child.kill('SIGKILL'), KILL_GRACE_MS);
      try {
        await this.exited;
      } finally {
        clearTimeout(timer);
      }
    })();
    return this.stopping;
  }
}

/** Polls `ready` every 100 ms until it is true; throws (with what the process said) when it exits or `timeoutMs` passes. */
export async function waitForFixture(proc: FixtureProcess, ready: () => Promise<boolean> | boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await ready()) return;
    if (!proc.running) throw new Error(`${what} exited before it was ready; stderr:\n${proc.stderr.trim()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${what} not ready within ${timeoutMs} ms; stderr:\n${proc.stderr.trim()}`);
}
