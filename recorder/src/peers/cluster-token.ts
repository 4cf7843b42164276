// The secret the nodes share for node-to-node requests, read from a file and read again when the file changes.
import { readFileSync, statSync } from 'node:fs';
import type { Logger } from 'pino';
import { systemClock, type Clock } from '../util/clock.js';

/** A mounted Secret is swapped by Kubernetes without notice; looking again at most this often keeps it cheap. */
const RECHECK_MS = 1000;

export interface ClusterToken {
  /** The current token, or undefined when none is configured or the file cannot be read. */
  current(): string | undefined;
}

export const NO_CLUSTER_TOKEN: ClusterToken = Object.freeze({ current: () => undefined });

/** `auth.cluster_token_file`: re-read when its size, mtime or inode changes, so a rotated token needs no restart. */
export function fileClusterToken(file: string | undefined, log: Logger, clock: Clock = systemClock): ClusterToken {
  if (file === undefined) return NO_CLUSTER_TOKEN;
  let checkedAt = -Infinity;
  let stamp = '';
  let token: string | undefined;
  let reported: string | undefined;
  const refresh = (): void => {
    let next: string;
    try {
      const st = statSync(file);
      next = `${st.ino}:${st.size}:${st.mtimeMs}`;
      if (next === stamp) return;
      token = readFileSync(file, 'utf8').trim() || undefined;
      if (stamp !== '') log.info({ file }, 'auth.cluster_token_file changed; using the new cluster token');
      stamp = next;
      reported = undefined;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? String(err);
      if (reported !== code) log.error({ file, err: code }, 'auth.cluster_token_file cannot be read; node-to-node requests will be refused');
      reported = code;
      token = undefined;
      stamp = '';
    }
  };
  return {
    current: () => {
      const now = clock.now();
      if (now - checkedAt >= RECHECK_MS) {
        checkedAt = now;
        refresh();
      }
      return token;
    },
  };
}
