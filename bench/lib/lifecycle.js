// Owns everything a benchmark starts: child processes (each in its own process group) and temp dirs.
// Normal path: stopAll()/removeTempDirs(). On ctrl-C/SIGTERM, a crash or exit: SIGKILL every tracked group, remove the dirs
// (unless keepTempDirs() was called: --keep).
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const live = new Set(); // tracked { child, name }
const tempDirs = new Set();
let hooked = false;
let keepDirs = false;

function killGroup(child, signal) {
  try {
    // detached: true made the child a process-group leader, so -pid reaches its children (the recorder's ffmpegs).
    process.kill(-child.pid, signal);
  } catch {
    try {
      child.kill(signal);
    } catch {
      // already gone
    }
  }
}

function emergencyCleanup() {
  for (const { child } of live) killGroup(child, 'SIGKILL');
  live.clear();
  if (!keepDirs) for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
  tempDirs.clear();
}

/** --keep: temp dirs the benchmark did not remove itself stay at exit (also on ctrl-C) instead of being removed. */
export function keepTempDirs() {
  keepDirs = true;
}

function installHooks() {
  if (hooked) return;
  hooked = true;
  process.on('exit', emergencyCleanup);
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.on(sig, () => {
      process.stderr.write(`\nbench: ${sig}, stopping everything\n`);
      emergencyCleanup();
      process.exit(130);
    });
  }
  process.on('uncaughtException', (err) => {
    process.stderr.write(`bench: ${err.stack ?? err}\n`);
    emergencyCleanup();
    process.exit(1);
  });
}

/** mkdtemp under the OS temp dir; removed by removeTempDirs() or at exit. */
export async function makeTempDir(prefix = 'vigil-bench-') {
  installHooks();
  const dir = await mkdtemp(join(tmpdir(), prefix));
  tempDirs.add(dir);
  return dir;
}

export async function removeTempDir(dir) {
  await rm(dir, { recursive: true, force: true });
  tempDirs.delete(dir);
}

/** spawn() in a new process group, tracked until it exits. Returns the ChildProcess with `.exitedPromise`. */
export function spawnTracked(command, args, options = {}) {
  installHooks();
  const child = spawn(command, args, { ...options, detached: true });
  const entry = { child, name: options.name ?? command };
  live.add(entry);
  child.exitedPromise = new Promise((resolve) => {
    child.once('exit', (code, signal) => {
      live.delete(entry);
      resolve({ code, signal });
    });
    child.once('error', (err) => {
      live.delete(entry);
      resolve({ code: -1, signal: null, error: err });
    });
  });
  return child;
}

/** SIGTERM (or `signal`), SIGKILL after graceMs; then SIGKILL what is left of the process group. */
export async function stopTracked(child, { signal = 'SIGTERM', graceMs = 10_000 } = {}) {
  if (child.exitCode === null && child.signalCode === null) {
    child.kill(signal);
    const timer = setTimeout(() => killGroup(child, 'SIGKILL'), graceMs);
    await child.exitedPromise;
    clearTimeout(timer);
  }
  killGroup(child, 'SIGKILL'); // leftovers in the group, if any
}

export async function stopAll(children, opts) {
  await Promise.all(children.map((c) => stopTracked(c, opts)));
}

export function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
