// Test support: runs a program to its end and hands back its exit code and both outputs; a non-zero exit is not an exception.
import { execFile } from 'node:child_process';

export interface CommandResult {
  /** The exit code (1 when the program could not run or was killed after the timeout). */
  code: number;
  stdout: string;
  stderr: string;
}

export function runCommand(file: string, args: string[], opts: { env?: NodeJS.ProcessEnv; input?: string; timeoutMs?: number } = {}): Promise<CommandResult> {
  const timeoutMs = opts.timeoutMs ?? 60_000;
  return new Promise((resolve) => {
    const child = execFile(file, args, { env: opts.env ?? process.env, timeout: timeoutMs, maxBuffer: 32 * 1024 * 1024 }, (err, stdout, stderr) => {
      const code = err === null ? 0 : typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : 1;
      const killed = err !== null && (err as { killed?: boolean }).killed === true;
      resolve({ code, stdout: String(stdout), stderr: String(stderr) + (killed ? `\n(killed after ${timeoutMs} ms)` : '') });
    });
    child.stdin?.end(opts.input);
  });
}

/** The command's stdout; throws with both outputs when it did not exit 0. */
export function ok(result: CommandResult, what: string): string {
  if (result.code !== 0) throw new Error(`${what} exited ${result.code}\nstdout:\n${result.stdout}\nstderr:\n${result.stderr}`);
  return result.stdout;
}
