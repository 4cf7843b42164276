// What a tool's run costs, for benchmarks that time one: wall seconds, the CPU of the children a process reaped, the
// fsync of what it wrote; and a cold page cache before the run.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { spawnTracked } from './lifecycle.js';
import { r2 } from './numbers.js';
import { clkTck } from './proc.js';

/** CPU seconds { user, sys } of the reaped children of `pid` (cutime, cstime of /proc/<pid>/stat). */
function reapedChildCpu(pid = 'self') {
  const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = text.slice(text.lastIndexOf(')') + 2).split(' '); // f[n - 3] is field n
  return { user: Number(f[13]) / clkTck(), sys: Number(f[14]) / clkTck() };
}

/** Runs `fn`, returning its result with the CPU its children (of `pid`) used meanwhile: cpu_user_s, cpu_sys_s. */
export async function withChildCpu(pid, fn) {
  const a = reapedChildCpu(pid);
  const out = await fn();
  const b = reapedChildCpu(pid);
  return { ...out, cpu_user_s: r2(b.user - a.user), cpu_sys_s: r2(b.sys - a.sys) };
}

/** Runs a tool to completion (tracked: stopped on ctrl-C); returns wall seconds. Throws with its stderr on failure. */
export async function runTool(command, args, { stdoutFd, name } = {}) {
  const t0 = performance.now();
  const child = spawnTracked(command, args, { stdio: ['ignore', stdoutFd ?? 'ignore', 'pipe'], name: name ?? command });
  let err = '';
  child.stderr.on('data', (b) => {
    err = (err + b.toString()).slice(-4000);
  });
  const { code, signal, error } = await child.exitedPromise;
  const seconds = (performance.now() - t0) / 1000;
  if (code !== 0) throw new Error(`${command} ${args.slice(0, 6).join(' ')} … failed (${error ?? code ?? signal}): ${err}`);
  return seconds;
}

/** sync, then drop the page cache (root only). True when dropped. */
export function coldCache() {
  execFileSync('sync');
  try {
    writeFileSync('/proc/sys/vm/drop_caches', '3');
    return true;
  } catch {
    return false;
  }
}

/** Seconds an fsync of `path` takes (what is still to be written of it). */
export async function fsyncSeconds(path) {
  const t0 = performance.now();
  const fh = await open(path, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
  return (performance.now() - t0) / 1000;
}
