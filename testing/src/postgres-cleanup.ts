// Tearing down a test postmaster's process tree: signal helpers, the sh watchdog, the process 'exit' hook and synchronous last-resort shutdown.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { Socket } from 'node:net';

/**
 * Runs when the owning Node process dies in a way no 'exit' hook sees (SIGKILL, SIGTERM, a crash):
 * its stdin pipe closes, `read` returns, and it shuts the postmaster down and removes the temp dir.
 * $1 = postmaster pid, $2 = temp dir. Ignores terminal/group signals so it outlives them. An exited postmaster
 * counts as gone even while a zombie (the orphan's new parent may never reap it, e.g. a container init).
 */
const WATCHDOG = `
trap '' INT TERM HUP
read -r _ || :
pm=$1
kids=$(ps -A -o pid= -o ppid= 2>/dev/null | awk -v p="$pm" '$2 == p { print $1 }')
kill -CONT "$pm" $kids 2>/dev/null
kill -QUIT "$pm" 2>/dev/null
alive() { case $(ps -o stat= -p "$pm" 2>/dev/null) in ''|Z*) return 1 ;; esac; }
i=0
while alive && [ "$i" -lt 50 ]; do sleep 0.05; i=$((i+1)); done
if alive; then kill -KILL "$pm" $kids 2>/dev/null; sleep 0.2; fi
rm -rf "$2"
`;

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

export function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // already gone
  }
}

/** Direct children of `pid` (the postmaster's backends and auxiliary processes). */
export function childrenOf(pid: number): number[] {
  let out: string;
  try {
    out = execFileSync('ps', ['-A', '-o', 'pid=', '-o', 'ppid='], { encoding: 'utf8' });
  } catch {
    return [];
  }
  const kids: number[] = [];
  for (const line of out.split('\n')) {
    const m = /^\s*(\d+)\s+(\d+)\s*$/.exec(line);
    if (m && Number(m[2]) === pid) kids.push(Number(m[1]));
  }
  return kids;
}

/** True once `pid` has exited (a zombie counts: our unreaped child cannot be reaped inside an 'exit' hook). */
function exitedSync(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state === 'Z' || state === 'X';
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return true;
  }
  try {
    process.kill(pid, 0);
    return false;
  } catch {
    return true;
  }
}

/** What the last-resort cleanup needs to know about a launched postmaster. */
export interface Postmaster {
  readonly pid: number;
  readonly hasExited: boolean;
  readonly watchdog: ChildProcess | undefined;
}

/** Something the process 'exit' hook must clean up synchronously. */
export interface SyncKillable {
  killSync(): void;
}

const live = new Set<SyncKillable>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const cluster of live) cluster.killSync();
  });
}

/** Registers a cluster with the 'exit' hook (installing the hook on first use). */
export function trackLive(cluster: SyncKillable): void {
  live.add(cluster);
  installExitHook();
}

/** Forgets a cluster that has been destroyed. */
export function untrackLive(cluster: SyncKillable): void {
  live.delete(cluster);
}

/** Starts the watchdog (see WATCHDOG) for postmaster `pid` owning temp dir `root`. */
export function spawnWatchdog(pid: number, root: string): ChildProcess | undefined {
  try {
    const wd = spawn('sh', ['-c', WATCHDOG, 'vigil-pg-watchdog', String(pid), root], { stdio: ['pipe', 'ignore', 'ignore'] });
    wd.once('error', () => undefined);
    wd.unref();
    if (wd.stdin instanceof Socket) {
      wd.stdin.on('error', () => undefined);
      wd.stdin.unref();
    }
    return wd;
  } catch {
    return undefined;
  }
}

/** Synchronous last-resort cleanup for the process 'exit' hook: immediate shutdown, SIGKILL if needed, remove the temp dir. */
export function killPostmasterSync(r: Postmaster | undefined, root: string): void {
  if (r && !r.hasExited) {
    if (r.watchdog?.pid !== undefined) signal(r.watchdog.pid, 'SIGKILL');
    const kids = childrenOf(r.pid);
    for (const pid of [...kids, r.pid]) signal(pid, 'SIGCONT');
    signal(r.pid, 'SIGQUIT');
    const deadline = Date.now() + 3000;
    while (!exitedSync(r.pid) && Date.now() < deadline) sleepSync(20);
    if (!exitedSync(r.pid)) for (const pid of [r.pid, ...kids]) signal(pid, 'SIGKILL');
  }
  try {
    rmSync(root, { recursive: true, force: true });
  } catch {
    // best effort at exit
  }
}
