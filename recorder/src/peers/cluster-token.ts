// The secret the nodes share for node-to-node requests, read from a file and read again when the file changes.
import type { Logger } from 'pino';
import type { Clock } from '../util/clock.js';
import { watchedFile } from '../util/watched-file.js';

export interface ClusterToken {
  /** The current token, or undefined when none is configured or the file cannot be read. */
  current(): string | undefined;
}

export const NO_CLUSTER_TOKEN: ClusterToken = Object.freeze({ current: () => undefined });

/** `auth.cluster_token_file`: a rotated token needs no restart. */
export function fileClusterToken(file: string | undefined, log: Logger, clock?: Clock): ClusterToken {
  if (file === undefined) return NO_CLUSTER_TOKEN;
  const watched = watchedFile({
    path: file,
    what: 'auth.cluster_token_file',
    log,
    ...(clock === undefined ? {} : { clock }),
    parse: (text) => {
      const token = text.trim();
      if (token === '') throw new Error('the file is empty');
      return token;
    },
  });
  return { current: () => watched.current() };
}
