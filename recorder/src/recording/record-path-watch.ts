// Watches record_path: recording pauses while it is missing (an unmounted disk) and resumes when it is back; never creates it.
import type { Logger } from 'pino';
import { recordPathProblem } from './record-path-folders.js';

export const RECORD_PATH_CHECK_INTERVAL_MS = 1000;

/** What the segment writer needs to know: may it write, and when may it again. */
export interface RecordPathState {
  /** true while record_path is an existing directory (as of the last check). */
  readonly present: boolean;
  /** Resolves once record_path is present (at once when it is). */
  whenPresent(): Promise<void>;
  /** Checks again now (a write just failed as if the directory were gone). */
  recheck(): void;
}

export interface RecordPathWatchOptions {
  recordPath: string;
  log: Logger;
  intervalMs?: number;
}

/**
 * One stat of record_path per interval for the whole node. A disk that is unmounted while recording must not be
 * replaced by an empty directory on the root file system: nothing here (or in the writer) ever creates record_path.
 */
export class RecordPathWatch implements RecordPathState {
  readonly #opts: RecordPathWatchOptions;
  readonly #listeners = new Set<(present: boolean) => void>();
  #problem: string | undefined = 'unchecked';
  #waiters: Array<() => void> = [];
  #timer: NodeJS.Timeout | undefined;
  #checking: Promise<void> | undefined;

  constructor(opts: RecordPathWatchOptions) {
    this.#opts = opts;
  }

  get present(): boolean {
    return this.#problem === undefined;
  }

  /** The first check (logged when the path is missing), then one check per interval until stop(). */
  async start(): Promise<void> {
    await this.#check();
    this.#timer ??= setInterval(() => void this.#check(), this.#opts.intervalMs ?? RECORD_PATH_CHECK_INTERVAL_MS);
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /** Told about every change: false when record_path went missing, true when it is back. */
  onChange(listener: (present: boolean) => void): void {
    this.#listeners.add(listener);
  }

  whenPresent(): Promise<void> {
    if (this.present) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  recheck(): void {
    void this.#check();
  }

  #check(): Promise<void> {
    this.#checking ??= recordPathProblem(this.#opts.recordPath)
      .then((problem) => this.#apply(problem))
      .finally(() => {
        this.#checking = undefined;
      });
    return this.#checking;
  }

  #apply(problem: string | undefined): void {
    const before = this.#problem;
    this.#problem = problem;
    const { log, recordPath } = this.#opts;
    if (problem !== undefined && (before === undefined || before === 'unchecked')) {
      log.error(
        { record_path: recordPath, reason: problem },
        `record_path ${recordPath} is missing (${problem}; an unmounted disk?): recording is paused and record_path is not recreated; recording resumes when it is back`,
      );
      for (const listener of this.#listeners) listener(false);
    } else if (problem === undefined && before !== undefined) {
      if (before !== 'unchecked') log.info({ record_path: recordPath }, `record_path ${recordPath} is back: recording resumes`);
      const waiters = this.#waiters;
      this.#waiters = [];
      for (const resolve of waiters) resolve();
      if (before !== 'unchecked') for (const listener of this.#listeners) listener(true);
    }
  }
}
