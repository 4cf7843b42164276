// Keeps one camera's ingest running: native or ffmpeg runs into the hub, silence detection, restarts (restart-policy.ts), fallback to ffmpeg.
import type { Logger } from 'pino';
import type { Camera, IngestPath } from '../cameras/camera.js';
import type { StreamHub } from '../stream/stream-hub.js';
import type { StreamEndReason } from '../stream/stream-item.js';
import { systemClock, type Clock } from '../util/clock.js';
import { sourceKind } from './ffmpeg-args.js';
import type { IngestRun, IngestRunEnd, IngestRunner } from './ingest-run.js';
import { FRESH_RESTART_STATE, planRestart, type RestartPlan, type RestartState, type RunEndKind } from './restart-policy.js';

export type IngestState = 'connecting' | 'streaming' | 'stalled' | 'waiting' | 'stopped';

export interface CameraSupervisorOptions {
  camera: Camera;
  hub: StreamHub;
  log: Logger;
  /** Makes the runner of a path; `native` is asked for only for RTSP sources whose camera wants it. */
  runner(path: IngestPath): IngestRunner;
  stallSeconds: number;
  /** A run that streamed at least this long (default: stall_seconds) resets the restart backoff. */
  healthyRunMs?: number;
  /** Time for stall detection and restart delays (default: the wall clock). */
  clock?: Clock;
  /**
   * Whether the camera accepts connections (a TCP connect to its RTSP port). With it, a camera that does not is probed
   * every PROBE_INTERVAL_MS and retried the moment it answers, without the restart backoff growing: backoff is for
   * cameras that answer and fail. Without it (testsrc, files) every restart waits its backoff delay.
   */
  probe?: () => Promise<boolean>;
}

/** How often a camera that does not accept connections is probed: recording resumes within this of its return. */
const PROBE_INTERVAL_MS = 500;

export interface IngestCounters {
  restarts: number;
  stalls: number;
  /** Times native ingest gave the camera up to ffmpeg (each fallback lasts one ffmpeg run). */
  fallbacks: number;
}

/** Which path reads the camera now, and why it is ffmpeg when native was wanted. */
export interface IngestStatus {
  path: IngestPath;
  fallbackReason: string | undefined;
}

/** Native ingest serves RTSP; testsrc and files are made by ffmpeg whatever the setting. */
export function initialIngestPath(camera: Camera): IngestPath {
  return camera.ingest === 'native' && sourceKind(camera.source) === 'rtsp' ? 'native' : 'ffmpeg';
}

/** What a run's end means for the next start, before any probe (restart-policy.ts). */
function endKind(end: IngestRunEnd): RunEndKind {
  if (end.authFailed === true) return 'auth-refused';
  if (end.retryAtOnce === true) return 'at-once';
  if (end.noStreamYet !== undefined) return 'no-stream-yet';
  return 'failed';
}

export class CameraSupervisor {
  readonly #opts: CameraSupervisorOptions;
  #restart: RestartState = FRESH_RESTART_STATE;
  /** The delay last announced for a server without a stream, so the log says it once per rate, not twice a second. */
  #noStreamDelayLogged: number | undefined;
  readonly #clock: Clock;
  #runner: IngestRunner;
  #fallbackReason: string | undefined;
  #lastFallbackReason: string | undefined;
  #state: IngestState = 'stopped';
  #run: IngestRun | undefined;
  #running = false;
  #stopping = false;
  #loop: Promise<void> | undefined;
  #wake: (() => void) | undefined;
  readonly counters: IngestCounters = { restarts: 0, stalls: 0, fallbacks: 0 };

  constructor(opts: CameraSupervisorOptions) {
    this.#opts = opts;
    this.#clock = opts.clock ?? systemClock;
    this.#runner = opts.runner(initialIngestPath(opts.camera));
  }

  get state(): IngestState {
    return this.#state;
  }

  get ingest(): IngestStatus {
    return { path: this.#runner.path, fallbackReason: this.#fallbackReason };
  }

  /** The ffmpeg process reading the camera, if that is the path and it runs. */
  get pid(): number | undefined {
    return this.#running ? this.#run?.pid : undefined;
  }

  start(): void {
    if (this.#loop !== undefined) return;
    this.#stopping = false;
    this.#loop = this.#loopRuns().catch((err: unknown) => {
      this.#opts.log.error({ err: String(err) }, 'camera supervisor failed');
    });
  }

  /** Ends the run and waits until it holds nothing; the hub reports the end as `stopped`. */
  async stop(): Promise<void> {
    this.#stopping = true;
    this.#wake?.();
    const run = this.#run;
    // Pictures held back for a later fragment reach the recording before the stream ends.
    if (this.#running) run?.sendHeld?.();
    this.#opts.hub.end('stopped');
    if (run !== undefined) await run.stop();
    await this.#loop;
    this.#loop = undefined;
    this.#state = 'stopped';
  }

  async #loopRuns(): Promise<void> {
    while (!this.#stopping) {
      const started = this.#clock.now();
      const outcome = await this.#runOnce();
      if (this.#stopping) break;
      const ranMs = outcome.firstDataAt === undefined ? 0 : this.#clock.now() - outcome.firstDataAt;
      if (ranMs >= (this.#opts.healthyRunMs ?? this.#opts.stallSeconds * 1000)) this.#restart = FRESH_RESTART_STATE;
      else if (outcome.firstDataAt !== undefined) this.#restart = { ...this.#restart, noStreamSince: undefined };
      const { end } = outcome;
      if (end.unsupported !== undefined && this.#runner.path === 'native') {
        this.#fallBackToFfmpeg(end.unsupported);
        continue;
      }
      // A fallback lasts one ffmpeg run: the next session tries native ingest again, so a cause that passes (a camera
      // set to another codec) does not keep the camera on ffmpeg. One that stays falls back again after its DESCRIBE.
      if (this.#fallbackReason !== undefined) this.#backToNative();
      this.counters.restarts++;
      this.#state = outcome.stalled ? 'stalled' : 'waiting';
      let kind = endKind(end);
      // A camera that may be down is probed once to tell (a refused login never is: that could lock the account).
      if (kind === 'failed' && this.#opts.probe !== undefined && !(await this.#opts.probe())) kind = 'down';
      const plan = planRestart(this.#restart, kind, this.#clock.now());
      this.#restart = plan.state;
      this.#logRestart(kind, plan, end, outcome.stalled, this.#clock.now() - started);
      if (plan.probe) await this.#waitUntilAnswering();
      else await this.#sleep(plan.delayMs);
    }
    this.#state = 'stopped';
  }

  #logRestart(kind: RunEndKind, plan: RestartPlan, end: IngestRunEnd, stalled: boolean, ranMs: number): void {
    const { log } = this.#opts;
    const fields = { ...end.detail, ingest: this.#runner.path, stalled, ran_ms: ranMs, ...(kind === 'down' ? { camera_down: true } : { retry_in_ms: plan.delayMs }) };
    if (kind !== 'no-stream-yet') {
      this.#noStreamDelayLogged = undefined;
      log.warn(fields, stalled ? 'camera went silent; restarting ingest' : 'ingest ended; restarting');
      return;
    }
    // Asked twice a second while it has no stream: said once per rate, the attempts themselves at debug level.
    if (this.#noStreamDelayLogged === plan.delayMs) {
      log.debug(fields, 'the camera has no stream yet; asking again');
      return;
    }
    this.#noStreamDelayLogged = plan.delayMs;
    log.warn({ ...fields, answer: end.noStreamYet }, `the camera answers but has no stream yet (${end.noStreamYet}); asking again every ${plan.delayMs / 1000} s`);
  }

  /** Probes the camera until it accepts a connection (or the supervisor stops); logs when it went and came back. */
  async #waitUntilAnswering(): Promise<void> {
    const { log, probe } = this.#opts;
    if (probe === undefined) return;
    const since = this.#clock.now();
    log.warn({ probe_every_ms: PROBE_INTERVAL_MS }, 'camera does not accept connections; reconnecting as soon as it does');
    while (!this.#stopping) {
      const at = this.#clock.now();
      if (await probe()) {
        log.info({ down_ms: this.#clock.now() - since }, 'camera accepts connections again; reconnecting');
        return;
      }
      await this.#sleep(Math.max(0, PROBE_INTERVAL_MS - (this.#clock.now() - at)));
    }
  }

  #fallBackToFfmpeg(reason: string): void {
    this.counters.fallbacks++;
    const again = reason === this.#lastFallbackReason;
    this.#fallbackReason = reason;
    this.#lastFallbackReason = reason;
    this.#runner = this.#opts.runner('ffmpeg');
    // Said once per cause: a camera that keeps needing ffmpeg falls back at every new session.
    if (again) this.#opts.log.debug({ reason }, 'native ingest still cannot record this camera; ffmpeg again');
    else this.#opts.log.warn({ reason }, `native ingest cannot record this camera (${reason}); falling back to ffmpeg`);
  }

  #backToNative(): void {
    this.#fallbackReason = undefined;
    this.#runner = this.#opts.runner(initialIngestPath(this.#opts.camera));
  }

  async #runOnce(): Promise<{ stalled: boolean; firstDataAt: number | undefined; end: IngestRunEnd }> {
    const { hub, stallSeconds } = this.#opts;
    const clock = this.#clock;
    let stalled = false;
    let firstDataAt: number | undefined;
    let lastDataAt = clock.now();
    this.#state = 'connecting';
    const run = this.#runner.start({
      onActivity: () => {
        lastDataAt = clock.now();
        firstDataAt ??= lastDataAt;
      },
      onInit: (init) => {
        this.#state = 'streaming';
        hub.publishInit(init);
      },
      onFragment: (fragment) => hub.publishFragment(fragment),
      watchedLive: () => hub.liveViewers > 0,
    });
    this.#run = run;
    this.#running = true;
    // A viewer who arrives gets the cached GOP up to the newest picture, not up to the last held-back batch.
    hub.beforeLiveJoin(() => run.sendHeld?.());
    const stallMs = stallSeconds * 1000;
    const watchdog = clock.setInterval(() => {
      if (!stalled && clock.now() - lastDataAt > stallMs) {
        stalled = true;
        this.counters.stalls++;
        this.#endStream(run, 'stalled');
        void run.stop();
      }
    }, Math.min(1000, Math.max(100, stallMs / 4)));
    try {
      const end = await run.ended;
      this.#running = false;
      this.#endStream(run, stalled ? 'stalled' : this.#stopping ? 'stopped' : 'exited');
      return { stalled, firstDataAt, end };
    } finally {
      clock.clearInterval(watchdog);
    }
  }

  /** Ends the hub's stream; pictures the run holds back for a later fragment reach the recording first. */
  #endStream(run: IngestRun, reason: StreamEndReason): void {
    run.sendHeld?.();
    this.#opts.hub.end(reason);
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
