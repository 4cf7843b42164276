// The exclusive lock on work_dir: one recorder per work_dir, or two would repair (truncate) each other's open segments.
import { hostname } from 'node:os';
import { link, readFile, stat, unlink, utimes, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Who holds the lock, as written in work_dir/vigil.lock. */
export interface LockHolder {
  pid: number;
  /** The process's start time in clock ticks since boot (/proc/PID/stat field 22): a reused pid has another. */
  start: string;
  host: string;
  /** The kernel's boot id: a pid and start time mean nothing after a reboot. */
  boot: string;
  /** When it took the lock (ISO 8601). */
  since: string;
}

export class WorkDirLockedError extends Error {
  constructor(
    readonly workDir: string,
    readonly holder: LockHolder,
  ) {
    super(
      `work_dir ${workDir} is in use by another vigil-recorder (pid ${holder.pid} on ${holder.host}, since ${holder.since}): ` +
        'two recorders on one work_dir would repair each other\'s open segments; stop that one, or give this one a work_dir of its own',
    );
    this.name = 'WorkDirLockedError';
  }
}

const LOCK_FILE = 'vigil.lock';
/** The holder touches the lock this often; one on another host (container) is alive while it does. */
const HEARTBEAT_MS = 5_000;
const HEARTBEAT_STALE_MS = 3 * HEARTBEAT_MS;
/** After taking a stale lock, look again this much later: of two recorders that took it together, the later one keeps it. */
const SETTLE_MS = 100;

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** Field 22 of /proc/PID/stat (after the command name, which may hold spaces and parentheses). */
function startTicks(pid: number): string | undefined {
  const stat = readText(`/proc/${pid}/stat`);
  if (stat === undefined) return undefined;
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
}

function me(now: Date): LockHolder {
  return {
    pid: process.pid,
    start: startTicks(process.pid) ?? '',
    host: hostname(),
    boot: (readText('/proc/sys/kernel/random/boot_id') ?? '').trim(),
    since: now.toISOString(),
  };
}

function parseHolder(text: string): LockHolder | undefined {
  try {
    const h = JSON.parse(text) as Partial<LockHolder>;
    if (typeof h.pid !== 'number' || typeof h.start !== 'string' || typeof h.host !== 'string' || typeof h.boot !== 'string') return undefined;
    return { pid: h.pid, start: h.start, host: h.host, boot: h.boot, since: String(h.since ?? '') };
  } catch {
    return undefined;
  }
}

/**
 * Whether the holder still runs. On this host and boot its pid must run with the same start time (so a dead recorder's
 * lock is stale at once, even when its pid was reused). A holder on another host or in another container (another pid
 * namespace, where its pid means nothing here) is alive while it keeps touching the file.
 */
async function holderAlive(holder: LockHolder, path: string, mine: LockHolder): Promise<boolean> {
  if (holder.host === mine.host && holder.boot === mine.boot) return holder.start !== '' && startTicks(holder.pid) === holder.start;
  const touched = await stat(path).then((s) => s.mtimeMs, () => 0);
  return Date.now() - touched < HEARTBEAT_STALE_MS;
}

export class WorkDirLock {
  readonly #path: string;
  readonly #text: string;
  readonly #heartbeat: NodeJS.Timeout;

  private constructor(path: string, text: string) {
    this.#path = path;
    this.#text = text;
    this.#heartbeat = setInterval(() => {
      const now = new Date();
      void utimes(path, now, now).catch(() => undefined);
    }, HEARTBEAT_MS);
    this.#heartbeat.unref();
  }

  /**
   * Takes work_dir/vigil.lock, replacing a stale one; throws WorkDirLockedError naming the holder when another recorder
   * runs on it. The lock file appears whole or not at all (written aside, then hard-linked into place).
   */
  static async take(workDir: string, now: Date = new Date()): Promise<WorkDirLock> {
    const path = join(workDir, LOCK_FILE);
    const mine = me(now);
    const text = `${JSON.stringify(mine)}\n`;
    const aside = `${path}.${process.pid}`;
    await writeFile(aside, text);
    try {
      for (let attempt = 0; attempt < 3; attempt++) {
        try {
          await link(aside, path);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
          const found = await readFile(path, 'utf8').catch(() => '');
          const holder = parseHolder(found);
          if (holder !== undefined && (await holderAlive(holder, path, mine))) throw new WorkDirLockedError(workDir, holder);
          await unlink(path).catch(() => undefined);
          continue;
        }
        await new Promise((r) => setTimeout(r, SETTLE_MS));
        const kept = await readFile(path, 'utf8').catch(() => '');
        if (kept === text) return new WorkDirLock(path, text);
        const holder = parseHolder(kept);
        if (holder !== undefined) throw new WorkDirLockedError(workDir, holder);
      }
      throw new Error(`cannot take the lock ${path}: it keeps changing`);
    } finally {
      await unlink(aside).catch(() => undefined);
    }
  }

  /** Removes the lock if it is still this process's. */
  async release(): Promise<void> {
    clearInterval(this.#heartbeat);
    const found = await readFile(this.#path, 'utf8').catch(() => undefined);
    if (found === this.#text) await unlink(this.#path).catch(() => undefined);
  }
}
