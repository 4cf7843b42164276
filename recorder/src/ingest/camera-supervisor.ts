// Keeps one camera's ffmpeg running: parses its output into the hub, detects silence, restarts with backoff.
import type { Logger } from 'pino';
import type { Camera } from '../cameras/camera.js';
import { Fmp4StreamParser } from '../media/fmp4-stream-parser.js';
import type { StreamHub } from '../stream/stream-hub.js';
import { systemClock, type Clock } from '../util/clock.js';
import { redactText } from '../util/redact.js';
import { Backoff } from './backoff.js';
import { ManagedChild } from '../process/managed-child.js';
import { buildIngestArgs, isUnsupportedAudioError } from './ffmpeg-args.js';

export type IngestState = 'connecting' | 'streaming' | 'stalled' | 'waiting' | 'stopped';

export interface CameraSupervisorOptions {
  camera: Camera;
  hub: StreamHub;
  log: Logger;
  ffmpegPath: string;
  stallSeconds: number;
  fragmentMicros?: number;
  /** A run that streamed at least this long (default: stall_seconds) resets the restart backoff. */
  healthyRunMs?: number;
  backoff?: Backoff;
  /** Time for stall detection and restart delays (default: the wall clock). */
  clock?: Clock;
}

export interface IngestCounters {
  restarts: number;
  stalls: number;
}

export class CameraSupervisor {
  readonly #opts: CameraSupervisorOptions;
  readonly #backoff: Backoff;
  readonly #clock: Clock;
  #state: IngestState = 'stopped';
  #child: ManagedChild | undefined;
  #stopping = false;
  #loop: Promise<void> | undefined;
  #wake: (() => void) | undefined;
  #audioAllowed = true;
  readonly counters: IngestCounters = { restarts: 0, stalls: 0 };

  constructor(opts: CameraSupervisorOptions) {
    this.#opts = opts;
    this.#backoff = opts.backoff ?? new Backoff();
    this.#clock = opts.clock ?? systemClock;
  }

  get state(): IngestState {
    return this.#state;
  }

  get pid(): number | undefined {
    return this.#child?.running ? this.#child.pid : undefined;
  }

  start(): void {
    if (this.#loop !== undefined) return;
    this.#stopping = false;
    this.#loop = this.#run().catch((err: unknown) => {
      this.#opts.log.error({ err: String(err) }, 'camera supervisor failed');
    });
  }

  /** Stops ffmpeg and waits until it has been reaped; the hub reports the end as `stopped`. */
  async stop(): Promise<void> {
    this.#stopping = true;
    this.#wake?.();
    const child = this.#child;
    this.#opts.hub.end('stopped');
    if (child !== undefined) await child.stop();
    await this.#loop;
    this.#loop = undefined;
    this.#state = 'stopped';
  }

  async #run(): Promise<void> {
    const { log } = this.#opts;
    while (!this.#stopping) {
      const started = this.#clock.now();
      const outcome = await this.#runOnce();
      if (this.#stopping) break;
      const ranMs = outcome.firstDataAt === undefined ? 0 : this.#clock.now() - outcome.firstDataAt;
      if (ranMs >= (this.#opts.healthyRunMs ?? this.#opts.stallSeconds * 1000)) this.#backoff.reset();
      const delay = outcome.retryAtOnce ? 0 : this.#backoff.take();
      this.counters.restarts++;
      this.#state = outcome.stalled ? 'stalled' : 'waiting';
      log.warn(
        { code: outcome.code, signal: outcome.signal, stalled: outcome.stalled, ran_ms: this.#clock.now() - started, retry_in_ms: delay },
        outcome.stalled ? 'camera went silent; restarting ingest' : 'ingest ended; restarting',
      );
      await this.#sleep(delay);
    }
    this.#state = 'stopped';
  }

  async #runOnce(): Promise<{ stalled: boolean; retryAtOnce: boolean; firstDataAt: number | undefined; code: number | null; signal: string | null }> {
    const { camera, hub, log, stallSeconds } = this.#opts;
    let stalled = false;
    let retryAtOnce = false;
    let firstDataAt: number | undefined;
    const clock = this.#clock;
    let lastDataAt = clock.now();
    this.#state = 'connecting';
    const parser = new Fmp4StreamParser(
      {
        onInit: (init) => {
          this.#state = 'streaming';
          hub.publishInit(init);
        },
        onFragment: (fragment) => hub.publishFragment(fragment),
        onError: (err) => {
          log.error({ err: err.message }, 'unparseable ffmpeg output; restarting ingest');
          void child.stop();
        },
      },
    );
    const args = buildIngestArgs(camera, { fragmentMicros: this.#opts.fragmentMicros ?? 200_000, audioAllowed: this.#audioAllowed });
    const child = new ManagedChild({
      command: this.#opts.ffmpegPath,
      args,
      onStdout: (chunk) => {
        lastDataAt = clock.now();
        firstDataAt ??= lastDataAt;
        parser.push(chunk);
      },
      onStderrLine: (line) => {
        if (this.#audioAllowed && camera.audio === 'auto' && isUnsupportedAudioError(line)) {
          this.#audioAllowed = false;
          retryAtOnce = true;
          log.warn('camera audio cannot be stored in MP4; recording video only (set audio: transcode to keep it)');
        }
        if (this.#stopping || stalled) log.debug({ ffmpeg: redactText(line) }, 'ffmpeg');
        else log.warn({ ffmpeg: redactText(line) }, 'ffmpeg');
      },
    });
    this.#child = child;
    log.info({ source: redactText(camera.source), pid: child.pid }, 'ingest started');
    const stallMs = stallSeconds * 1000;
    const watchdog = clock.setInterval(() => {
      if (!stalled && clock.now() - lastDataAt > stallMs) {
        stalled = true;
        this.counters.stalls++;
        hub.end('stalled');
        void child.stop();
      }
    }, Math.min(1000, Math.max(100, stallMs / 4)));
    try {
      const exit = await child.exited;
      hub.end(stalled ? 'stalled' : this.#stopping ? 'stopped' : 'exited');
      return { stalled, retryAtOnce, firstDataAt, code: exit.code, signal: exit.signal };
    } finally {
      clock.clearInterval(watchdog);
      parser.reset();
    }
  }

  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const clock = this.#clock;
      const timer = clock.setTimeout(done, ms);
      function done(): void {
        clock.clearTimeout(timer);
        resolve();
      }
      this.#wake = done;
    });
  }
}
