// Every camera this node records: converges the running set on the registry and on start/stop requests, one operation per camera at a time.
import type { Logger } from 'pino';
import { sameCamera, type Camera } from '../cameras/camera.js';
import { CameraNotFoundError } from '../cameras/camera-errors.js';
import type { CameraChangeListener } from '../cameras/registry.js';

export type CameraState = 'recording' | 'stalled' | 'stopped';

/** What the fleet runs per camera (CameraRuntime in production, a fake in unit tests). */
export interface FleetRuntime {
  readonly camera: Camera;
  readonly streaming: boolean;
  start(): void;
  /** Resolves once the camera's processes are gone and its files are closed. */
  stop(): Promise<void>;
}

/** The registry as the fleet reads it: the wanted cameras, and a nudge whenever one changes. */
export interface WantedCameras {
  get(id: string): Camera | undefined;
  list(): Camera[];
  listen(listener: CameraChangeListener): void;
}

/**
 * Level-triggered: a change of any kind to a camera id only schedules a convergence of that id. The
 * convergence compares what runs with what is wanted *now* (the registry, the stop requests, shutdown),
 * stops what differs, waits until it is gone, and reads the wanted state again before starting anything.
 * So a burst of changes (v2, v3, removed, re-added) ends with exactly the latest wanted state and never
 * two runtimes of one camera at once.
 */
export class CameraFleet<R extends FleetRuntime = FleetRuntime> {
  readonly #wanted: WantedCameras;
  readonly #createRuntime: (camera: Camera) => R;
  readonly #log: Logger;
  readonly #running = new Map<string, R>();
  /** Convergences in progress, one per camera id. */
  readonly #converging = new Map<string, Promise<void>>();
  /** Cameras stopped through POST /cameras/stop; they stay stopped until started or the process restarts. */
  readonly #stoppedByRequest = new Set<string>();
  #shuttingDown = false;

  constructor(wanted: WantedCameras, createRuntime: (camera: Camera) => R, log: Logger) {
    this.#wanted = wanted;
    this.#createRuntime = createRuntime;
    this.#log = log;
    const changed = (cam: Camera): void => void this.#converge(cam.id);
    wanted.listen({
      onAdded: changed,
      onUpdated: changed,
      onRemoved: (cam) => {
        this.#stoppedByRequest.delete(cam.id);
        changed(cam);
      },
    });
  }

  runtime(cameraId: string): R | undefined {
    return this.#running.get(cameraId);
  }

  runtimes(): R[] {
    return [...this.#running.values()];
  }

  state(cameraId: string): CameraState | undefined {
    if (this.#wanted.get(cameraId) === undefined) return undefined;
    const rt = this.#running.get(cameraId);
    if (rt === undefined) return 'stopped';
    return rt.streaming ? 'recording' : 'stalled';
  }

  /** Starts one camera or all (`*`); returns how many were not running and now are (or are about to be). */
  startByRequest(id: string): number {
    let changed = 0;
    for (const cam of this.#targets(id)) {
      this.#stoppedByRequest.delete(cam.id);
      if (!this.#running.has(cam.id)) changed++;
      void this.#converge(cam.id);
    }
    return changed;
  }

  /** Stops one camera or all (`*`); returns how many changed state. Files are closed before it resolves. */
  async stopByRequest(id: string): Promise<number> {
    const done: Promise<void>[] = [];
    let changed = 0;
    for (const cam of this.#targets(id)) {
      this.#stoppedByRequest.add(cam.id);
      if (this.#running.has(cam.id)) changed++;
      done.push(this.#converge(cam.id));
    }
    await Promise.all(done);
    return changed;
  }

  /** Resolves when no convergence is in progress (everything runs as wanted, as of that moment). */
  async idle(): Promise<void> {
    while (this.#converging.size > 0) await Promise.all([...this.#converging.values()]);
  }

  /** SIGTERM: stop every camera, closing and syncing every open file. */
  async shutdown(): Promise<void> {
    this.#shuttingDown = true;
    for (const id of this.#running.keys()) void this.#converge(id);
    await this.idle();
  }

  #targets(id: string): Camera[] {
    if (id === '*') return this.#wanted.list();
    const cam = this.#wanted.get(id);
    if (cam === undefined) throw new CameraNotFoundError(id);
    return [cam];
  }

  #want(id: string): Camera | undefined {
    if (this.#shuttingDown || this.#stoppedByRequest.has(id)) return undefined;
    return this.#wanted.get(id);
  }

  /** Joins the convergence of `id` in progress, or begins one. */
  #converge(id: string): Promise<void> {
    const inProgress = this.#converging.get(id);
    if (inProgress !== undefined) return inProgress; // it reads the wanted state again after every wait
    let finish!: () => void;
    const done = new Promise<void>((resolve) => (finish = resolve));
    this.#converging.set(id, done);
    void this.#convergeLoop(id)
      .catch((err: unknown) => {
        this.#log.error({ camera: id, err: String(err) }, 'camera convergence failed');
        if (this.#converging.get(id) === done) this.#converging.delete(id);
      })
      .finally(finish);
    return done;
  }

  async #convergeLoop(id: string): Promise<void> {
    for (;;) {
      const want = this.#want(id);
      const have = this.#running.get(id);
      if (have !== undefined && (want === undefined || !sameCamera(have.camera, want))) {
        this.#running.delete(id);
        if (want !== undefined) this.#log.info({ camera: id }, 'camera changed; restarting it');
        await this.#stopRuntime(id, have);
        continue;
      }
      if (have === undefined && want !== undefined) this.#startRuntime(want);
      // Converged at this instant: leave without awaiting, so a change from now on begins a new loop.
      this.#converging.delete(id);
      return;
    }
  }

  #startRuntime(cam: Camera): void {
    try {
      const rt = this.#createRuntime(cam);
      this.#running.set(cam.id, rt);
      rt.start();
      this.#log.info({ camera: cam.id, format: cam.record.format, segment_seconds: cam.record.segmentSeconds }, 'camera started');
    } catch (err) {
      this.#running.delete(cam.id);
      this.#log.error({ camera: cam.id, err: String(err) }, 'camera could not be started');
    }
  }

  async #stopRuntime(id: string, rt: R): Promise<void> {
    try {
      await rt.stop();
      this.#log.info({ camera: id }, 'camera stopped');
    } catch (err) {
      this.#log.error({ camera: id, err: String(err) }, 'camera stop failed');
    }
  }
}
