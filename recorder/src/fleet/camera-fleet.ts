// Every camera this node records: follows the registry, applies start/stop requests, shuts down cleanly.
import type { Logger } from 'pino';
import type { Camera } from '../cameras/camera.js';
import { CameraNotFoundError } from '../cameras/camera-errors.js';
import type { CameraRegistry } from '../cameras/registry.js';
import { CameraRuntime, type CameraRuntimeDeps } from './camera-runtime.js';

export type CameraState = 'recording' | 'stalled' | 'stopped';


export class CameraFleet {
  readonly #registry: CameraRegistry;
  readonly #deps: CameraRuntimeDeps;
  readonly #log: Logger;
  readonly #running = new Map<string, CameraRuntime>();
  /** Cameras stopped through POST /cameras/stop; they stay stopped until started or the process restarts. */
  readonly #stoppedByRequest = new Set<string>();
  /** Stops in progress, so a restart waits for the old ffmpeg to be gone. */
  readonly #stopping = new Map<string, Promise<void>>();
  #shuttingDown = false;

  constructor(registry: CameraRegistry, deps: CameraRuntimeDeps) {
    this.#registry = registry;
    this.#deps = deps;
    this.#log = deps.log;
    registry.listen({
      onAdded: (cam) => {
        if (!this.#stoppedByRequest.has(cam.id)) this.#start(cam);
      },
      onUpdated: (cam) => {
        if (this.#running.has(cam.id)) {
          this.#log.info({ camera: cam.id }, 'camera changed; restarting it');
          this.#stop(cam.id).then(() => this.#start(cam), () => this.#start(cam));
        }
      },
      onRemoved: (cam) => {
        this.#stoppedByRequest.delete(cam.id);
        void this.#stop(cam.id);
      },
    });
  }

  runtime(cameraId: string): CameraRuntime | undefined {
    return this.#running.get(cameraId);
  }

  runtimes(): CameraRuntime[] {
    return [...this.#running.values()];
  }

  state(cameraId: string): CameraState | undefined {
    if (this.#registry.get(cameraId) === undefined) return undefined;
    const rt = this.#running.get(cameraId);
    if (rt === undefined) return 'stopped';
    return rt.ingestState === 'streaming' ? 'recording' : 'stalled';
  }

  /** Starts one camera or all (`*`); returns how many changed state. */
  startByRequest(id: string): number {
    const targets = this.#targets(id);
    let changed = 0;
    for (const cam of targets) {
      this.#stoppedByRequest.delete(cam.id);
      if (!this.#running.has(cam.id)) {
        this.#start(cam);
        changed++;
      }
    }
    return changed;
  }

  /** Stops one camera or all (`*`); returns how many changed state. Files are closed before it resolves. */
  async stopByRequest(id: string): Promise<number> {
    const targets = this.#targets(id);
    const stops: Promise<void>[] = [];
    for (const cam of targets) {
      this.#stoppedByRequest.add(cam.id);
      if (this.#running.has(cam.id)) stops.push(this.#stop(cam.id));
    }
    await Promise.all(stops);
    return stops.length;
  }

  /** SIGTERM: stop every camera, closing and syncing every open file. */
  async shutdown(): Promise<void> {
    this.#shuttingDown = true;
    await Promise.all([...this.#running.keys()].map((id) => this.#stop(id)));
    await Promise.all([...this.#stopping.values()]);
  }

  #targets(id: string): Camera[] {
    if (id === '*') return this.#registry.list();
    const cam = this.#registry.get(id);
    if (cam === undefined) throw new CameraNotFoundError(id);
    return [cam];
  }

  #start(cam: Camera): void {
    if (this.#shuttingDown || this.#running.has(cam.id)) return;
    const pending = this.#stopping.get(cam.id);
    if (pending !== undefined) {
      void pending.then(() => {
        if (this.#registry.get(cam.id) !== undefined && !this.#stoppedByRequest.has(cam.id)) this.#start(this.#registry.get(cam.id) as Camera);
      });
      return;
    }
    const rt = new CameraRuntime(cam, this.#deps);
    this.#running.set(cam.id, rt);
    rt.start();
    this.#log.info({ camera: cam.id, format: cam.record.format, segment_seconds: cam.record.segmentSeconds }, 'camera started');
  }

  #stop(cameraId: string): Promise<void> {
    const rt = this.#running.get(cameraId);
    if (rt === undefined) return this.#stopping.get(cameraId) ?? Promise.resolve();
    this.#running.delete(cameraId);
    const stopping = rt
      .stop()
      .then(() => this.#log.info({ camera: cameraId }, 'camera stopped'))
      .catch((err: unknown) => this.#log.error({ camera: cameraId, err: String(err) }, 'camera stop failed'))
      .finally(() => this.#stopping.delete(cameraId));
    this.#stopping.set(cameraId, stopping);
    return stopping;
  }
}
