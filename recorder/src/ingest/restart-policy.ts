// When a camera's next ingest run starts after one ended: at once, after probing, fast while it has no stream yet, or with backoff.

/** DESCRIBE answers of a server that runs but has no stream to give yet (a relay without its publisher, a camera booting). */
const NO_STREAM_YET = new Set([404, 500, 502, 503, 504]);

/** Whether a DESCRIBE answered with `status` means "the server is up, the stream is not there yet". */
export function answersWithoutStream(status: number): boolean {
  return NO_STREAM_YET.has(status);
}

/** Restart delays of a camera that answers and fails: 1 s doubling to 30 s (and the wait after refused credentials). */
export const FAILURE_FIRST_MS = 1_000;
export const FAILURE_LONGEST_MS = 30_000;
/** A server that answers without a stream is asked again this often... */
export const NO_STREAM_RETRY_MS = 500;
/** ...for this long after its first such answer (a camera's boot, a relay's or VLC's restart take less)... */
export const NO_STREAM_FAST_FOR_MS = 5 * 60_000;
/** ...and this often after that (a relay whose camera is off for hours is not asked twice a second all along). */
export const NO_STREAM_SLOW_RETRY_MS = 2_000;

/** How a run ended, as far as the next start is concerned. */
export type RunEndKind =
  /** The stream ended or a lesson was learnt (a transport, audio): start again without waiting. */
  | 'at-once'
  /** The camera refused the credentials: wait the longest delay, never sooner (an account could be locked). */
  | 'auth-refused'
  /** The server answered but has no stream yet (DESCRIBE 404/5xx): ask again soon. */
  | 'no-stream-yet'
  /** The camera does not accept connections: probe it and start the moment it does. */
  | 'down'
  /** Anything else: backoff. */
  | 'failed';

export interface RestartState {
  /** Failed runs since the last healthy one: the backoff's exponent. */
  readonly failures: number;
  /** When the server first answered without a stream, in this run of such answers. */
  readonly noStreamSince: number | undefined;
}

export const FRESH_RESTART_STATE: RestartState = { failures: 0, noStreamSince: undefined };

export interface RestartPlan {
  readonly state: RestartState;
  /** How long to wait before the next run (after the camera answers again, for `down`). */
  readonly delayMs: number;
  /** Probe the camera's port until it accepts a connection before the next run. */
  readonly probe: boolean;
}

/** The failure backoff's next delay for `failures` failures before it. */
function failureDelay(failures: number): number {
  return Math.min(FAILURE_LONGEST_MS, FAILURE_FIRST_MS * 2 ** Math.min(failures, 30));
}

/** What to do after a run that ended as `kind` at `now` (ms); a run that streamed long enough starts from FRESH_RESTART_STATE. */
export function planRestart(state: RestartState, kind: RunEndKind, now: number): RestartPlan {
  switch (kind) {
    case 'at-once':
      return { state, delayMs: 0, probe: false };
    case 'down':
      // The backoff does not grow while the camera is away: it is not failing, it is not there.
      return { state, delayMs: 0, probe: true };
    case 'auth-refused':
      return { state: { failures: state.failures + 1, noStreamSince: undefined }, delayMs: FAILURE_LONGEST_MS, probe: false };
    case 'no-stream-yet': {
      const since = state.noStreamSince ?? now;
      const delayMs = now - since < NO_STREAM_FAST_FOR_MS ? NO_STREAM_RETRY_MS : NO_STREAM_SLOW_RETRY_MS;
      return { state: { failures: state.failures, noStreamSince: since }, delayMs, probe: false };
    }
    case 'failed':
      return { state: { failures: state.failures + 1, noStreamSince: undefined }, delayMs: failureDelay(state.failures), probe: false };
  }
}
