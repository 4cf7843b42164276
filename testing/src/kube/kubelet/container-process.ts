// One container of a Pod as local processes, run after run: spawns each run, keeps what every run wrote (the
// container's log, as `kubectl logs` and `--previous` would show it), and says how each run ended.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';

/** util-linux's setpriv (Debian's util-linux, always installed). */
const SETPRIV = '/usr/bin/setpriv';

export interface ContainerExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  startedAt: Date;
  finishedAt: Date;
}

/** What a test sees of one container, across its restarts. */
export interface ContainerHandle {
  readonly name: string;
  /** The running process's id, undefined between runs. */
  readonly pid: number | undefined;
  /** Runs started so far (the first start is run 1). */
  readonly runs: number;
  /** Everything every run wrote, stdout and stderr. */
  output(): string;
  /** What the current (or last) run wrote. */
  runOutput(): string;
  /** Resolves once a run's output satisfies `predicate` (checked as output arrives). */
  waitForOutput(predicate: (runText: string) => boolean, timeoutMs?: number): Promise<void>;
  /** Sends a signal to the running process (none when it is not running). */
  signal(sig: NodeJS.Signals): void;
}

export class ContainerProcess implements ContainerHandle {
  private child: ChildProcess | undefined;
  private all = '';
  private current = '';
  private readonly waiters = new Set<() => void>();
  runs = 0;
  lastExit: ContainerExit | undefined;
  startedAt: Date | undefined;

  constructor(readonly name: string) {}

  get pid(): number | undefined {
    return this.child?.pid;
  }

  get running(): boolean {
    return this.child !== undefined;
  }

  output(): string {
    return this.all;
  }

  runOutput(): string {
    return this.current;
  }

  /** Starts a run; `onExit` is called once it ends. */
  start(command: string[], env: Record<string, string>, cwd: string, onExit: (exit: ContainerExit) => void): void {
    // setpriv execs the command with a parent-death signal: the process is the container's own (its pid, its signals),
    // and it cannot outlive the test process even when that one is killed outright (no exit hook runs then).
    const [file, ...args] = existsSync(SETPRIV) ? [SETPRIV, '--pdeathsig', 'KILL', '--', ...command] : command;
    this.runs++;
    this.current = '';
    const startedAt = new Date();
    this.startedAt = startedAt;
    const child = spawn(file as string, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    const onText = (chunk: Buffer): void => {
      const text = chunk.toString('utf8');
      this.all += text;
      this.current += text;
      for (const w of [...this.waiters]) w();
    };
    child.stdout?.on('data', onText);
    child.stderr?.on('data', onText);
    let ended = false;
    const end = (code: number | null, signal: NodeJS.Signals | null): void => {
      if (ended) return;
      ended = true;
      if (this.child === child) this.child = undefined;
      this.lastExit = { code, signal, startedAt, finishedAt: new Date() };
      for (const w of [...this.waiters]) w();
      onExit(this.lastExit);
    };
    child.on('error', (err) => {
      onText(Buffer.from(`${String(err)}\n`));
      end(127, null);
    });
    child.on('exit', (code, signal) => end(code, signal));
    // Also at a normal exit of the test process (setpriv's signal comes only when the process that spawned it ends).
    const killOnExit = (): void => {
      child.kill('SIGKILL');
    };
    process.on('exit', killOnExit);
    child.on('exit', () => process.off('exit', killOnExit));
  }

  signal(sig: NodeJS.Signals): void {
    this.child?.kill(sig);
  }

  waitForOutput(predicate: (runText: string) => boolean, timeoutMs = 30_000): Promise<void> {
    return new Promise((resolve, reject) => {
      const check = (): void => {
        if (!predicate(this.current)) return;
        cleanup();
        resolve();
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`container ${this.name}: timed out waiting for its output; it wrote:\n${this.current.slice(-3000)}`));
      }, timeoutMs);
      const cleanup = (): void => {
        clearTimeout(timer);
        this.waiters.delete(check);
      };
      this.waiters.add(check);
      check();
    });
  }
}
