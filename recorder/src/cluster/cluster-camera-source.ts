// The cluster as a camera source: the Camera resources this node records, published into the registry and cached on disk.
import type { Logger } from 'pino';
import { sameCamera, type Camera } from '../cameras/camera.js';
import type { CameraRegistry } from '../cameras/registry.js';
import type { VigilConfig } from '../config/schema.js';
import type { Clock, TimerHandle } from '../util/clock.js';
import type { AssignmentCache } from './assignment-cache.js';
import { cameraFromResource } from './camera-from-resource.js';
import type { ClusterView } from './cluster-view.js';

export const CLUSTER_SOURCE = 'cluster';

export interface ClusterCameraSourceOptions {
  view: ClusterView;
  registry: CameraRegistry;
  config: VigilConfig;
  nodeName: string;
  cache: AssignmentCache;
  clock: Clock;
  log: Logger;
}

export class ClusterCameraSource {
  readonly #opts: ClusterCameraSourceOptions;
  #published: Camera[] = [];
  #pending: TimerHandle | undefined;
  /** After a forced leave (the API unreachable) the node records nothing until it is added back. */
  #recordNothing = false;
  readonly #problems = new Map<string, string>();

  constructor(opts: ClusterCameraSourceOptions) {
    this.#opts = opts;
  }

  /** What this node records now (as published). */
  get cameras(): readonly Camera[] {
    return this.#published;
  }

  /** Publishes the cached assignment at once (a restart without the API records what it had), then follows the API. */
  async start(): Promise<void> {
    const cached = await this.#opts.cache.read();
    if (cached !== undefined && cached.length > 0) {
      this.#publish(cached, false);
      this.#opts.log.info({ cameras: cached.map((c) => c.id) }, 'recording the cached cluster assignment until the Kubernetes API answers');
    }
    this.#opts.view.onChange(() => this.#schedule());
    this.#schedule();
  }

  stop(): void {
    this.#opts.clock.clearTimeout(this.#pending);
  }

  recordNothing(): void {
    this.#recordNothing = true;
    this.#publish([], false);
  }

  resume(): void {
    this.#recordNothing = false;
    this.#schedule();
  }

  /** Many watch events arrive together (a re-list, a rollout): publish once for all of them. */
  #schedule(): void {
    if (this.#pending !== undefined) return;
    this.#pending = this.#opts.clock.setTimeout(() => {
      this.#pending = undefined;
      this.refresh();
    }, 25);
  }

  /** Computes this node's cameras from the view and publishes them when they changed. */
  refresh(): void {
    const { view, config } = this.#opts;
    if (!view.synced || this.#recordNothing) return;
    const cameras: Camera[] = [];
    for (const resource of view.recordedHere()) {
      const result = cameraFromResource(resource, (camera) => view.cameraCredentials(camera), config);
      const id = resource.metadata.name ?? '';
      if (result.ok) {
        cameras.push(result.camera);
        this.#problems.delete(id);
      } else if (this.#problems.get(id) !== result.message) {
        this.#problems.set(id, result.message);
        this.#opts.log.warn({ camera: id, reason: result.reason }, `camera assigned to this node cannot be recorded: ${result.message}`);
      }
    }
    cameras.sort((a, b) => (a.id < b.id ? -1 : 1));
    this.#publish(cameras, true);
  }

  #publish(cameras: Camera[], persist: boolean): void {
    const same = cameras.length === this.#published.length && cameras.every((c, i) => sameCamera(c, this.#published[i] as Camera));
    if (same) return;
    this.#published = cameras;
    const changes = this.#opts.registry.publish(CLUSTER_SOURCE, cameras);
    if (changes.added.length + changes.updated.length + changes.removed.length > 0) this.#opts.log.info(changes, 'cluster cameras of this node changed');
    if (persist) {
      void this.#opts.cache.write(cameras).catch((err: unknown) => this.#opts.log.warn({ err: (err as Error).message }, 'cannot cache the cluster assignment'));
    }
  }
}
