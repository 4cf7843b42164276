// The external media tool (ffmpeg): found on PATH at submit, run with progress reporting.
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import { delimiter, isAbsolute, join } from 'node:path';
import { ManagedChild } from '../process/managed-child.js';
import { JobFailure } from './job-record.js';

/** Resolves a command name to an executable file, or undefined when the node does not have it. */
export async function findExecutable(command: string, pathEnv = process.env['PATH'] ?? ''): Promise<string | undefined> {
  const candidates = isAbsolute(command) || command.includes('/') ? [command] : pathEnv.split(delimiter).filter(Boolean).map((d) => join(d, command));
  for (const c of candidates) {
    try {
      await access(c, constants.X_OK);
      return c;
    } catch {
      // next
    }
  }
  return undefined;
}

export interface MediaRun {
  args: string[];
  /** Seconds of output expected, to turn out_time into a 0–1 progress. */
  expectedSeconds: number;
  onProgress(fraction: number): void;
  signal: AbortSignal;
}

/** Runs the tool with `-progress pipe:1`; throws JobFailure(media_tool_failed) with its last error lines. */
export async function runMediaTool(tool: string, run: MediaRun): Promise<void> {
  const errors: string[] = [];
  let pending = '';
  const child = new ManagedChild({
    command: tool,
    args: ['-hide_banner', '-nostdin', '-loglevel', 'error', '-progress', 'pipe:1', '-nostats', ...run.args],
    onStdout: (chunk) => {
      pending += chunk.toString('latin1');
      let nl: number;
      while ((nl = pending.indexOf('\n')) >= 0) {
        const line = pending.slice(0, nl);
        pending = pending.slice(nl + 1);
        const m = /^out_time_(?:us|ms)=(\d+)/.exec(line);
        if (m !== null && run.expectedSeconds > 0) run.onProgress(Math.max(0, Math.min(0.99, Number(m[1]) / 1e6 / run.expectedSeconds)));
      }
    },
    onStderrLine: (line) => {
      errors.push(line);
      if (errors.length > 8) errors.shift();
    },
  });
  const abort = (): void => void child.stop();
  run.signal.addEventListener('abort', abort, { once: true });
  try {
    const exit = await child.exited;
    if (run.signal.aborted) throw new JobFailure('interrupted', 'the job was stopped');
    if (exit.code !== 0) throw new JobFailure('media_tool_failed', `the media tool failed (exit ${exit.code ?? exit.signal}): ${errors.slice(-3).join(' | ')}`);
  } finally {
    run.signal.removeEventListener('abort', abort);
  }
}
