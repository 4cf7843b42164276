// The exclusive lock on work_dir: one recorder per work_dir, or two would repair (truncate) each other's open segments.
import { spawn, type ChildProcess } from 'node:child_process';
import { hostname } from 'node:os';
import { open, readFile } from 'node:fs/promises';
import { join } from 'node:path';

/** Who holds the lock, as written in work_dir/vigil.lock (for the message only: the kernel decides who holds it). */
export interface LockHolder {
  pid: number;
  host: string;
  /** When it took the lock (ISO 8601). */
  since: string;
}

export class WorkDirLockedError extends Error {
  constructor(
    readonly workDir: string,
    readonly holder: LockHolder | undefined,
  ) {
    const who = holder === undefined ? 'it has not written its name yet' : `pid ${holder.pid} on ${holder.host}, since ${holder.since}`;
    super(
      `work_dir ${workDir} is in use by another vigil-recorder (${who}): ` +
        'two recorders on one work_dir would repair each other\'s open segments; stop that one, or give this one a work_dir of its own',
    );
    this.name = 'WorkDirLockedError';
  }
}

const LOCK_FILE = 'vigil.lock';
/** flock(1)'s exit status when another process holds the lock (--conflict-exit-code). */
const HELD_ELSEWHERE = 75;
/** What the lock's keeper echoes once it holds the lock. */
const HELD = 'held\n';
const TAKE_TIMEOUT_MS = 10_000;
/**
 * The keeper: flock(1) takes the kernel's lock on the file and runs `cat` (without the lock: flock alone holds it), which
 * echoes our line (so we know the lock is held) and then waits for the end of its input, our end of the pipe: the kernel
 * closes it when this process dies, however it dies, and flock ends with cat, which drops the lock. It ignores the
 * signals a terminal or a service manager sends the whole group, so a Ctrl-C or a stop reaches the recorder, which
 * releases the lock when it has closed its files.
 */
const KEEPER = `trap '' HUP INT TERM QUIT; exec flock --exclusive --nonblock --close --conflict-exit-code ${HELD_ELSEWHERE} "$0" cat`;

function me(now: Date): LockHolder {
  return { pid: process.pid, host: hostname(), since: now.toISOString() };
}

function parseHolder(text: string): LockHolder | undefined {
  try {
    const h = JSON.parse(text) as Partial<LockHolder>;
    if (typeof h.pid !== 'number' || typeof h.host !== 'string') return undefined;
    return { pid: h.pid, host: h.host, since: String(h.since ?? '') };
  } catch {
    return undefined;
  }
}

/** Starts the keeper; resolves once it holds the lock, with the keeper, or with 'held' when another process holds it. */
function startKeeper(path: string): Promise<ChildProcess | 'held'> {
  return new Promise((resolve, reject) => {
    // Its own process group: a signal to ours (a terminal's Ctrl-C) does not end it before the recorder is done.
    const keeper = spawn('/bin/sh', ['-c', KEEPER, path], { stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    let stderr = '';
    let echoed = '';
    const timer = setTimeout(() => fail(new Error(`cannot take the lock ${path}: flock did not answer within ${TAKE_TIMEOUT_MS / 1000} s`)), TAKE_TIMEOUT_MS);
    const settle = (): void => {
      clearTimeout(timer);
      keeper.removeListener('exit', onExit);
      keeper.removeListener('error', fail);
    };
    function fail(err: Error): void {
      settle();
      keeper.kill('SIGKILL');
      reject(err);
    }
    function onExit(code: number | null): void {
      settle();
      if (code === HELD_ELSEWHERE) resolve('held');
      else reject(new Error(`cannot take the lock ${path}: flock(1) (util-linux) ended with ${code ?? 'a signal'}${stderr === '' ? '' : `: ${stderr.trim()}`}`));
    }
    keeper.on('error', fail);
    keeper.on('exit', onExit);
    keeper.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    keeper.stdout?.on('data', (chunk: Buffer) => {
      echoed += chunk.toString('utf8');
      if (echoed !== HELD) return;
      settle();
      resolve(keeper);
    });
    // A keeper that ends at once (the lock is held elsewhere) closes its input first: its exit status tells why.
    keeper.stdin?.on('error', () => undefined);
    keeper.stdin?.write(HELD);
  });
}

export interface WorkDirLockOptions {
  /** Called once if the lock is lost while held (its keeper was killed): another recorder may take it now. */
  onLost(why: string): void;
  now?: Date;
}

/**
 * work_dir/vigil.lock, locked with flock(2) by a keeper process (Node.js has no flock): the kernel holds the lock for as
 * long as this process lives and drops it when it dies, however it dies. A process that is stopped (SIGSTOP, a debugger,
 * a hung disk) still holds it, so nobody takes the directory over from under it. The file is never removed or replaced:
 * a lock on a file that another has replaced would lock nothing. Its text names the holder for the message of the next.
 */
export class WorkDirLock {
  readonly #keeper: ChildProcess;
  #released = false;

  private constructor(keeper: ChildProcess, onLost: (why: string) => void) {
    this.#keeper = keeper;
    keeper.once('exit', (code, signal) => {
      if (!this.#released) onLost(`the process that held the lock (pid ${keeper.pid}) ended (${signal ?? `status ${code}`})`);
    });
    // The keeper never keeps the recorder from exiting.
    keeper.unref();
    for (const stream of [keeper.stdin, keeper.stdout, keeper.stderr]) (stream as unknown as { unref?: () => void } | null)?.unref?.();
  }

  /** The pid of the process that holds the kernel's lock for us. */
  get keeperPid(): number | undefined {
    return this.#keeper.pid;
  }

  /** Takes work_dir/vigil.lock; throws WorkDirLockedError naming the holder when another recorder holds it. */
  static async take(workDir: string, opts: WorkDirLockOptions): Promise<WorkDirLock> {
    const path = join(workDir, LOCK_FILE);
    // Created if missing, never truncated here: the file may be another recorder's lock, with its name in it.
    await (await open(path, 'a')).close();
    const keeper = await startKeeper(path);
    if (keeper === 'held') throw new WorkDirLockedError(workDir, parseHolder(await readFile(path, 'utf8').catch(() => '')));
    const lock = new WorkDirLock(keeper, opts.onLost);
    // Rewritten in place (same file, so the same lock): a reader may see it half written and then names nobody.
    const file = await open(path, 'r+');
    try {
      await file.truncate(0);
      await file.write(`${JSON.stringify(me(opts.now ?? new Date()))}\n`, 0);
    } finally {
      await file.close();
    }
    return lock;
  }

  /** Lets the lock go (the keeper ends at the end of its input). */
  async release(): Promise<void> {
    if (this.#released) return;
    this.#released = true;
    const keeper = this.#keeper;
    if (keeper.exitCode !== null || keeper.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => keeper.once('exit', () => resolve()));
    keeper.ref(); // waited for now
    keeper.stdin?.end();
    await exited;
  }
}
