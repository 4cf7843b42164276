// Retrying a write that met a 409 Conflict: exponential backoff with full jitter, slept on the caller's Clock.
import { isConflict } from './client.js';
import type { Clock } from './clock.js';

export interface ConflictRetryOptions {
  clock: Clock;
  /** Attempts in all (the first included). */
  attempts?: number;
  /** The first backoff's upper bound; each further one doubles it, up to maxMs. */
  baseMs?: number;
  maxMs?: number;
  /** A number in [0, 1): Math.random unless a test pins it. */
  random?: () => number;
  signal?: AbortSignal;
}

/** The wait before retry number `retry` (1 = the first retry): uniform in [0, min(max, base × 2^(retry-1))]. */
export function conflictBackoffMs(retry: number, baseMs: number, maxMs: number, random: () => number): number {
  return Math.floor(random() * Math.min(maxMs, baseMs * 2 ** (retry - 1)));
}

/**
 * Runs `attempt` until it succeeds or fails with something other than a conflict; a conflict is retried after a
 * jittered backoff (two writers that collided do not collide again in lockstep). The last conflict is thrown once
 * the attempts are used up.
 */
export async function retryOnConflict<T>(attempt: (n: number) => Promise<T>, opts: ConflictRetryOptions): Promise<T> {
  const attempts = opts.attempts ?? 5;
  const random = opts.random ?? Math.random;
  for (let n = 1; ; n++) {
    try {
      return await attempt(n);
    } catch (err) {
      if (!isConflict(err) || n >= attempts || opts.signal?.aborted) throw err;
      await opts.clock.sleep(conflictBackoffMs(n, opts.baseMs ?? 50, opts.maxMs ?? 2000, random), opts.signal);
    }
  }
}
