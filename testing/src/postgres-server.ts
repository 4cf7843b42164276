// Preparing a test cluster's server binaries: who runs them, their environment, initdb output capture, a free port, postgresql.conf settings, and log tails.
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';

/** Debian's PostgreSQL 15 binaries; VIGIL_PG_BINDIR overrides. */
const BIN_DIR = process.env['VIGIL_PG_BINDIR'] ?? '/usr/lib/postgresql/15/bin';

export interface Identity {
  uid: number;
  gid: number;
}

let cachedIdentity: Identity | null | undefined;

/** Who runs initdb/postgres: the `postgres` system user when we are root (they refuse root), else ourselves (undefined). */
export function serverIdentity(): Identity | undefined {
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
export function serverEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('PG')) env[k] = v;
  env['LC_ALL'] = 'C';
  env['LANG'] = 'C';
  return env;
}

export function bin(name: string): string {
  return join(BIN_DIR, name);
}

/** A port outside the kernel's ephemeral range (so outgoing connections and port-0 listeners can't take it while we're stopped). */
export async function pickPort(): Promise<number> {
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

export async function logTail(logPath: string, fromByte = 0, maxChars = 4000): Promise<string> {
  try {
    const text = (await readFile(logPath)).subarray(fromByte).toString('utf8');
    const tail = text.length > maxChars ? `…${text.slice(-maxChars)}` : text;
    return tail.trim() === '' ? '(server log empty)' : `server log (${logPath}):\n${tail}`;
  } catch (err) {
    return `(server log unreadable: ${String(err)})`;
  }
}

export function runCapture(cmd: string, args: string[], cwd: string, identity: Identity | undefined): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, env: serverEnv(), stdio: ['ignore', 'pipe', 'pipe'], ...(identity ?? {}) });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (output += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (output += c));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, output }));
  });
}

export function settingsBlock(port: number, socketDir: string): string {
  const quote = (s: string): string => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;
  return [
    '',
    '# --- vigil test settings (testing/src/postgres.ts) ---',
    "listen_addresses = '127.0.0.1'",
    `port = ${port}`,
    `unix_socket_directories = ${quote(socketDir)}`,
    'fsync = off',
    'synchronous_commit = off',
    'full_page_writes = off',
    'max_connections = 100',
    'shared_buffers = 32MB',
    'huge_pages = off',
    // The postmaster's stderr goes to <temp dir>/postgres.log (see launch() in postgres.ts).
    "log_destination = 'stderr'",
    'logging_collector = off',
    "log_line_prefix = '%m [%p] '",
    '',
  ].join('\n');
}
