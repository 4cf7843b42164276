// Looks for processes by their command line, to prove none was left behind.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** PIDs of live (non-zombie and zombie alike) processes whose command line contains `needle`. */
export async function processesMatching(needle: string): Promise<Array<{ pid: number; state: string; args: string }>> {
  const { stdout } = await run('ps', ['-eo', 'pid=,stat=,args=']);
  return stdout
    .split('\n')
    .map((l) => /^\s*(\d+)\s+(\S+)\s+(.*)$/.exec(l))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ pid: Number(m[1]), state: m[2] as string, args: m[3] as string }))
    .filter((p) => p.args.includes(needle) && !p.args.startsWith('ps '));
}

export async function waitUntil(cond: () => Promise<boolean> | boolean, timeoutMs: number, what: string, stepMs = 200): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await cond()) return;
    await new Promise((r) => setTimeout(r, stepMs));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
}
