// The API tokens in force: `auth.tokens` of the configuration plus `auth.tokens_file`, read again when the file changes.
import type { Logger } from 'pino';
import type { VigilConfig } from './config/schema.js';
import { parseTokensFile, type TokenEntry } from './config/tokens-file.js';
import type { Clock } from './util/clock.js';
import { watchedFile } from './util/watched-file.js';

export interface ApiTokens {
  current(): readonly TokenEntry[];
}

export function apiTokens(config: VigilConfig, log: Logger, clock: Clock): ApiTokens {
  const fixed = config.auth.tokens;
  const file = config.auth.tokens_file;
  if (file === undefined) return { current: () => fixed };
  // A bad edit keeps the last good list rather than locking every caller out.
  const watched = watchedFile({ path: file, what: 'auth.tokens_file', parse: parseTokensFile, log, clock, forgetWhenMissing: false });
  let lastFromFile: readonly TokenEntry[] | undefined;
  let merged: readonly TokenEntry[] = fixed;
  return {
    current: () => {
      const fromFile = watched.current();
      if (fromFile !== lastFromFile) {
        lastFromFile = fromFile;
        merged = [...fixed, ...(fromFile ?? [])];
      }
      return merged;
    },
  };
}
