// Throw-away PostgreSQL clusters for tests (public API and cluster lifecycle): initdb into a temp dir, start/stop/freeze/thaw, create databases; helpers live in postgres-server.ts and postgres-cleanup.ts.
import { spawn, type ChildProcess } from 'node:child_process';
import { chown, mkdtemp, open, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { childrenOf, killPostmasterSync, signal, spawnWatchdog, trackLive, untrackLive } from './postgres-cleanup.js';
import { bin, logTail, pickPort, runCapture, serverEnv, serverIdentity, settingsBlock, type Identity } from './postgres-server.js';

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

const SUPERUSER = 'vigil';
const DEFAULT_DB = 'vigil_test';
const START_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 20_000;
const DB_NAME = /^[A-Za-z0-9_][A-Za-z0-9_-]{0,62}$/;

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

interface Running {
  child: ChildProcess;
  pid: number;
  exited: Promise<void>;
  hasExited: boolean;
  watchdog: ChildProcess | undefined;
  frozen: number[] | undefined;
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
    untrackLive(this);
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
    killPostmasterSync(this.running, this.root);
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
    const running: Running = { child, pid, exited, hasExited: false, watchdog: spawnWatchdog(pid, this.root), frozen: undefined };
    this.running = running;
    trackLive(this);

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
