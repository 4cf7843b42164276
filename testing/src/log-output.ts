// Test support: runs a Vigil binary until its output shows a line, with stdout on a pipe or on a pseudo-terminal
// (util-linux `script`), then stops it with SIGTERM; for the checks of the log format a person or a collector sees.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { tempDir } from './temp-dir.js';

/** ANSI colour and cursor sequences, as a terminal would interpret them. */
const ANSI = new RegExp(`${String.fromCharCode(27)}\\[[0-9;?]*[A-Za-z]`, 'g');
export const stripAnsi = (text: string): string => text.replace(ANSI, '');

const quote = (arg: string): string => `'${arg.replace(/'/g, `'\\''`)}'`;

/**
 * The program's stdout (and stderr) from its start until `until` matches, then SIGTERM and its end. On a terminal the
 * program runs under `script` from a shell that reports its pid and execs it, so the signal reaches the program itself.
 */
export async function runUntil(t: TestContext, argv: string[], opts: { until: RegExp; terminal: boolean; env?: NodeJS.ProcessEnv; timeoutMs?: number }): Promise<string> {
  let command = argv[0]!;
  let args = argv.slice(1);
  if (opts.terminal) {
    const dir = await tempDir(t, 'vigil-tty-');
    const wrapper = join(dir, 'run.sh');
    // The shell says its pid, then becomes the program (exec keeps the pid). `script` runs the command with $SHELL -c;
    // the leading exec makes that shell go too: dash (Debian's /bin/sh, the shell of a CI job) would otherwise wait
    // and add its own "Terminated" line to the output once the program ends on SIGTERM.
    writeFileSync(wrapper, 'echo "vigil-test-pid $$"\nexec "$@"\n');
    command = 'script';
    args = ['-qefc', `exec ${['sh', wrapper, ...argv].map(quote).join(' ')}`, '/dev/null'];
  }
  const child = spawn(command, args, { env: opts.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  let programPid = opts.terminal ? undefined : child.pid;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  t.after(() => {
    if (programPid !== undefined) try { process.kill(programPid, 'SIGKILL'); } catch { /* already gone */ }
    child.kill('SIGKILL');
  });
  const seen = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no line matching ${opts.until} within ${opts.timeoutMs ?? 90_000} ms:\n${output}`)), opts.timeoutMs ?? 90_000);
    const onData = (chunk: Buffer): void => {
      output += chunk.toString('utf8');
      const pid = /vigil-test-pid (\d+)/.exec(output);
      if (pid !== null) programPid = Number(pid[1]);
      if (opts.until.test(stripAnsi(output)) && programPid !== undefined) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    void exited.then(() => reject(new Error(`the program ended before a line matching ${opts.until}:\n${output}`)));
  });
  await seen;
  process.kill(programPid!, 'SIGTERM');
  await exited;
  return output.replace(/^vigil-test-pid \d+\r?\n/m, '');
}
