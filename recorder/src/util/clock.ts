// The one source of time and timers the recorder's logic reads, so that tests can move time by hand.

/** What setTimeout/setInterval return; opaque to callers except that a timer can be told not to hold the process open. */
export interface TimerHandle {
  unref?(): unknown;
}

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  setTimeout(fn: () => void, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle | undefined): void;
  setInterval(fn: () => void, ms: number): TimerHandle;
  clearInterval(handle: TimerHandle | undefined): void;
}

/** The wall clock and Node's timers (immutable, so safe to share). */
export const systemClock: Clock = Object.freeze({
  now: () => Date.now(),
  setTimeout: (fn: () => void, ms: number) => setTimeout(fn, ms),
  clearTimeout: (handle: TimerHandle | undefined) => clearTimeout(handle as NodeJS.Timeout | undefined),
  setInterval: (fn: () => void, ms: number) => setInterval(fn, ms),
  clearInterval: (handle: TimerHandle | undefined) => clearInterval(handle as NodeJS.Timeout | undefined),
});
