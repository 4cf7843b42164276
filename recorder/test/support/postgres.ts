// Throw-away PostgreSQL clusters for tests: initdb into a temp dir, start/stop/freeze/thaw the server, create databases, and never leave one running.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { chown, mkdtemp, open, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

export interface TestPostgres {
  /** postgres://USER@127.0.0.1:PORT/vigil_test — a superuser, trust auth. */
  readonly url: string;
  readonly port: number;
  readonly dataDir: string;
  /** Fast shutdown (what `pg_ctl -m fast` does: SIGINT); resolves once the postmaster has exited. Idempotent. */
  stop(): Promise<void>;
  /** Starts again on the same port and data dir; resolves when it accepts connections. No-op when running. */
  start(): Promise<void>;
  /** SIGSTOPs the postmaster and all its children: connections and queries hang. */
  freeze(): void;
  /** SIGCONTs them again. */
  thaw(): void;
  /** Creates a fresh database in this cluster and returns its URL. */
  createDatabase(name: string): Promise<string>;
  /** stop() and remove the temp dir. Idempotent. */
  destroy(): Promise<void>;
}

/** Debian's PostgreSQL 15 binaries; VIGIL_PG_BINDIR overrides. */
const BIN_DIR = process.env['VIGIL_PG_BINDIR'] ?? '/usr/lib/postgresql/15/bin';
const SUPERUSER = 'vigil';
const DEFAULT_DB = 'vigil_test';
const START_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 20_000;
const DB_NAME = /^[A-Za-z0-9_][A-Za-z0-9_-]{0,62}$/;

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

interface Identity {
  uid: number;
  gid: number;
}

let cachedIdentity: Identity | null | undefined;

/** Who runs initdb/postgres: the `postgres` system user when we are root (they refuse root), else ourselves (undefined). */
function serverIdentity(): Identity | undefined {
  if (cachedIdentity !== undefined) return cachedIdentity ?? undefined;
  if (process.getuid?.() !== 0) {
    cachedIdentity = null;
    return undefined;
  }
  try {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    if (!Number.isInteger(uid) || !Number.isInteger(gid)) throw new Error('unparsable id output');
    cachedIdentity = { uid, gid };
    return cachedIdentity;
  } catch (err) {
    throw new Error(`running as root, so initdb/postgres must run as the 'postgres' system user, which was not found: ${String(err)}`);
  }
}

/** Environment for the server binaries: no PG* variables leaking in, C locale. */
function serverEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('PG')) env[k] = v;
  env['LC_ALL'] = 'C';
  env['LANG'] = 'C';
  return env;
}

function bin(name: string): string {
  return join(BIN_DIR, name);
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // already gone
  }
}

/** Direct children of `pid` (the postmaster's backends and auxiliary processes). */
function childrenOf(pid: number): number[] {
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

/** A port outside the kernel's ephemeral range (so outgoing connections and port-0 listeners can't take it while we're stopped). */
async function pickPort(): Promise<number> {
  let low = 32768;
  try {
    const first = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    if (Number.isInteger(first) && first > 0) low = first;
  } catch {
    // not Linux: keep the usual default
  }
  const base = 15_000;
  for (let attempt = 0; attempt < 50; attempt++) {
    const candidate = low - base > 1000 ? base + Math.floor(Math.random() * (low - base)) : 0;
    const port = await tryListen(candidate);
    if (port !== undefined) return port;
  }
  throw new Error('could not find a free port for the test postgres');
}

function tryListen(port: number): Promise<number | undefined> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(undefined));
    server.listen({ port, host: '127.0.0.1', exclusive: true }, () => {
      const addr = server.address();
      const bound = typeof addr === 'object' && addr !== null ? addr.port : undefined;
      server.close(() => resolve(bound));
    });
  });
}

async function logTail(logPath: string, fromByte = 0, maxChars = 4000): Promise<string> {
  try {
    const text = (await readFile(logPath)).subarray(fromByte).toString('utf8');
    const tail = text.length > maxChars ? `…${text.slice(-maxChars)}` : text;
    return tail.trim() === '' ? '(server log empty)' : `server log (${logPath}):\n${tail}`;
  } catch (err) {
    return `(server log unreadable: ${String(err)})`;
  }
}

function runCapture(cmd: string, args: string[], cwd: string, identity: Identity | undefined): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, env: serverEnv(), stdio: ['ignore', 'pipe', 'pipe'], ...(identity ?? {}) });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (output += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (output += c));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, output }));
  });
}

function settingsBlock(port: number, socketDir: string): string {
  const quote = (s: string): string => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;
  return [
    '',
    '# --- vigil test settings (test/support/postgres.ts) ---',
    "listen_addresses = '127.0.0.1'",
    `port = ${port}`,
    `unix_socket_directories = ${quote(socketDir)}`,
    'fsync = off',
    'synchronous_commit = off',
    'full_page_writes = off',
    'max_connections = 100',
    'shared_buffers = 32MB',
    'huge_pages = off',
    // The postmaster's stderr goes to <temp dir>/postgres.log (see launch()).
    "log_destination = 'stderr'",
    'logging_collector = off',
    "log_line_prefix = '%m [%p] '",
    '',
  ].join('\n');
}

interface Running {
  child: ChildProcess;
  pid: number;
  exited: Promise<void>;
  hasExited: boolean;
  watchdog: ChildProcess | undefined;
  frozen: number[] | undefined;
}

const live = new Set<Cluster>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const cluster of live) cluster.killSync();
  });
}

class Cluster implements TestPostgres {
  readonly dataDir: string;
  private readonly logPath: string;
  private readonly confPath: string;
  private running: Running | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private destroyed = false;
  private originalConf = '';
  private currentPort = 0;

  constructor(
    private readonly root: string,
    private readonly identity: Identity | undefined,
  ) {
    this.dataDir = join(root, 'data');
    this.logPath = join(root, 'postgres.log');
    this.confPath = join(this.dataDir, 'postgresql.conf');
  }

  get port(): number {
    return this.currentPort;
  }

  get url(): string {
    return this.urlFor(DEFAULT_DB);
  }

  private urlFor(db: string): string {
    return `postgres://${SUPERUSER}@127.0.0.1:${this.currentPort}/${db}`;
  }

  /** initdb, configure, start (retrying with another port if ours was taken meanwhile), create vigil_test. */
  async init(): Promise<void> {
    const res = await runCapture(
      bin('initdb'),
      ['-D', this.dataDir, '-A', 'trust', '-U', SUPERUSER, '--no-sync', '-E', 'UTF8', '--locale=C', '--no-instructions'],
      this.root,
      this.identity,
    );
    if (res.code !== 0) throw new Error(`initdb failed (exit ${res.code}) in ${this.dataDir}:\n${res.output.slice(-4000)}`);
    this.originalConf = await readFile(this.confPath, 'utf8');
    for (let attempt = 1; ; attempt++) {
      this.currentPort = await pickPort();
      await writeFile(this.confPath, this.originalConf + settingsBlock(this.currentPort, this.root));
      try {
        await this.serialized(() => this.launch());
        break;
      } catch (err) {
        const portTaken = err instanceof Error && /could not bind|Address already in use|could not create any TCP\/IP sockets/.test(err.message);
        if (!portTaken || attempt >= 3) throw err;
      }
    }
    await this.createDatabase(DEFAULT_DB);
  }

  start(): Promise<void> {
    return this.serialized(async () => {
      if (this.destroyed) throw new Error('test postgres was destroyed');
      if (this.running) return;
      await this.launch();
    });
  }

  stop(): Promise<void> {
    return this.serialized(() => this.halt());
  }

  async destroy(): Promise<void> {
    let stopError: unknown;
    try {
      await this.serialized(async () => {
        this.destroyed = true;
        await this.halt();
      });
    } catch (err) {
      stopError = err;
      this.killSync();
    }
    await rm(this.root, { recursive: true, force: true });
    live.delete(this);
    if (stopError !== undefined) throw stopError;
  }

  freeze(): void {
    const r = this.running;
    if (!r || r.hasExited) throw new Error('test postgres is not running');
    if (r.frozen) return;
    // Postmaster first, so it cannot fork new children while we stop the existing ones.
    signal(r.pid, 'SIGSTOP');
    const kids = childrenOf(r.pid);
    for (const pid of kids) signal(pid, 'SIGSTOP');
    r.frozen = kids;
  }

  thaw(): void {
    const r = this.running;
    if (!r?.frozen) return;
    const kids = new Set([...r.frozen, ...childrenOf(r.pid)]);
    for (const pid of kids) signal(pid, 'SIGCONT');
    signal(r.pid, 'SIGCONT');
    r.frozen = undefined;
  }

  async createDatabase(name: string): Promise<string> {
    if (!DB_NAME.test(name)) throw new Error(`invalid test database name ${JSON.stringify(name)} (use letters, digits, _ and -)`);
    const client = new pg.Client({
      host: '127.0.0.1',
      port: this.currentPort,
      user: SUPERUSER,
      database: 'postgres',
      connectionTimeoutMillis: 10_000,
      query_timeout: 30_000,
    });
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.query(`CREATE DATABASE ${client.escapeIdentifier(name)}`);
    } catch (err) {
      throw new Error(`creating database ${name} failed: ${String(err)}\n${await logTail(this.logPath)}`);
    } finally {
      await client.end().catch(() => undefined);
    }
    return this.urlFor(name);
  }

  /** Synchronous last-resort cleanup for the process 'exit' hook: immediate shutdown, SIGKILL if needed, remove the temp dir. */
  killSync(): void {
    const r = this.running;
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
      rmSync(this.root, { recursive: true, force: true });
    } catch {
      // best effort at exit
    }
  }

  private serialized<T>(fn: () => Promise<T>): Promise<T> {
    const result = this.queue.then(fn, fn);
    this.queue = result.catch(() => undefined);
    return result;
  }

  /** Spawns `postgres -D` (stderr → postgres.log) plus its watchdog, and waits for postmaster.pid to say "ready". */
  private async launch(): Promise<void> {
    const log = await open(this.logPath, 'a');
    const logStart = (await log.stat()).size;
    let child: ChildProcess;
    try {
      child = spawn(bin('postgres'), ['-D', this.dataDir], {
        cwd: this.root,
        env: serverEnv(),
        stdio: ['ignore', log.fd, log.fd],
        ...(this.identity ?? {}),
      });
    } finally {
      await log.close();
    }
    let spawnError: Error | undefined;
    const exited = new Promise<void>((resolve) => {
      child.once('error', (err) => {
        spawnError = err;
        resolve();
      });
      child.once('exit', () => resolve());
    }).then(() => {
      const r = this.running;
      if (r?.child !== child) return;
      r.hasExited = true;
      if (r.watchdog?.pid !== undefined) signal(r.watchdog.pid, 'SIGKILL');
      this.running = undefined;
    });
    // A forgotten cluster must not keep the test process alive; the exit hook and the watchdog clean up after it.
    child.unref();
    const pid = child.pid;
    if (pid === undefined) {
      await exited;
      throw new Error(`could not start ${bin('postgres')}: ${String(spawnError)}`);
    }
    const running: Running = { child, pid, exited, hasExited: false, watchdog: this.spawnWatchdog(pid), frozen: undefined };
    this.running = running;
    live.add(this);
    installExitHook();

    const deadline = Date.now() + START_TIMEOUT_MS;
    for (;;) {
      if (running.hasExited) {
        await exited;
        throw new Error(`postgres exited during startup (port ${this.currentPort}, data ${this.dataDir})\n${await logTail(this.logPath, logStart)}`);
      }
      if (await this.isReady(pid)) return;
      if (Date.now() > deadline) {
        await this.forceStop(running);
        throw new Error(`postgres did not become ready within ${START_TIMEOUT_MS} ms (port ${this.currentPort})\n${await logTail(this.logPath, logStart)}`);
      }
      await sleep(25);
    }
  }

  /** pg_ctl -w's test: postmaster.pid names our pid and its status line reads "ready". */
  private async isReady(pid: number): Promise<boolean> {
    try {
      const lines = (await readFile(join(this.dataDir, 'postmaster.pid'), 'utf8')).split('\n');
      return lines[0]?.trim() === String(pid) && lines[7]?.trim() === 'ready';
    } catch {
      return false;
    }
  }

  private spawnWatchdog(pid: number): ChildProcess | undefined {
    try {
      const wd = spawn('sh', ['-c', WATCHDOG, 'vigil-pg-watchdog', String(pid), this.root], { stdio: ['pipe', 'ignore', 'ignore'] });
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

  /** Fast shutdown (SIGINT, as `pg_ctl -m fast`); escalates to SIGQUIT, then SIGKILL, and then reports the failure. */
  private async halt(): Promise<void> {
    const r = this.running;
    if (!r || r.hasExited) return;
    this.thaw();
    signal(r.pid, 'SIGINT');
    if (await this.waitExit(r, STOP_TIMEOUT_MS)) return;
    await this.forceStop(r);
    throw new Error(`postgres did not shut down within ${STOP_TIMEOUT_MS} ms; killed it\n${await logTail(this.logPath)}`);
  }

  private async forceStop(r: Running): Promise<void> {
    this.thaw();
    signal(r.pid, 'SIGQUIT');
    if (await this.waitExit(r, 5000)) return;
    for (const pid of [r.pid, ...childrenOf(r.pid)]) signal(pid, 'SIGKILL');
    await this.waitExit(r, 5000);
  }

  private async waitExit(r: Running, ms: number): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    // The (ref'd) timer also keeps the event loop alive while we wait on the unref'd child.
    const timedOut = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
    const done = await Promise.race([r.exited.then(() => true), timedOut]);
    clearTimeout(timer);
    return done;
  }
}

/** initdb a throw-away cluster in a fresh temp dir, start it on a free port, and create the `vigil_test` database. */
export async function startTestPostgres(): Promise<TestPostgres> {
  const identity = serverIdentity();
  const root = await mkdtemp(join(tmpdir(), 'vigil-pg-'));
  if (identity) await chown(root, identity.uid, identity.gid);
  const cluster = new Cluster(root, identity);
  try {
    await cluster.init();
  } catch (err) {
    await cluster.destroy().catch(() => undefined);
    await rm(root, { recursive: true, force: true });
    throw err;
  }
  return cluster;
}
