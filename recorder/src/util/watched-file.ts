// A small file read again when it changes (a rotated Kubernetes Secret, an edited token list), looked at no more than once a second.
import { readFileSync, statSync } from 'node:fs';
import type { Logger } from 'pino';
import { systemClock, type Clock } from './clock.js';

/** A mounted Secret is swapped by Kubernetes without notice; looking again at most this often keeps it cheap. */
const RECHECK_MS = 1000;

export interface WatchedFile<T> {
  /** The parsed content, or undefined while the file cannot be read or parsed (for a bad edit: the last good content). */
  current(): T | undefined;
}

export interface WatchedFileOptions<T> {
  path: string;
  /** What the file is, for log lines (e.g. "auth.cluster_token_file"). Never logs the content. */
  what: string;
  /** Throws on content that cannot be used; the message names the problem. */
  parse(text: string): T;
  log: Logger;
  clock?: Clock;
  /** A file that is gone means "nothing" (true), or keeps the last content (false). */
  forgetWhenMissing?: boolean;
}

/** Re-read when its inode, size or mtime changes; synchronous, so it can sit on a request path. */
export function watchedFile<T>(opts: WatchedFileOptions<T>): WatchedFile<T> {
  const clock = opts.clock ?? systemClock;
  let checkedAt = -Infinity;
  let stamp = '';
  let value: T | undefined;
  let reported: string | undefined;
  const fail = (problem: string): void => {
    if (reported !== problem) opts.log.error({ file: opts.path, err: problem }, `${opts.what} cannot be used: ${problem}`);
    reported = problem;
  };
  const refresh = (): void => {
    let next: string;
    try {
      const st = statSync(opts.path);
      next = `${st.ino}:${st.size}:${st.mtimeMs}`;
    } catch (err) {
      fail((err as NodeJS.ErrnoException).code ?? String(err));
      stamp = '';
      if (opts.forgetWhenMissing !== false) value = undefined;
      return;
    }
    if (next === stamp) return;
    stamp = next;
    try {
      const parsed = opts.parse(readFileSync(opts.path, 'utf8'));
      if (value !== undefined || reported !== undefined) opts.log.info({ file: opts.path }, `${opts.what} changed; using the new content`);
      value = parsed;
      reported = undefined;
    } catch (err) {
      fail((err as Error).message);
    }
  };
  return {
    current: () => {
      const now = clock.now();
      if (now - checkedAt >= RECHECK_MS) {
        checkedAt = now;
        refresh();
      }
      return value;
    },
  };
}
