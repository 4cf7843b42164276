// The set of cameras this node records, merged from pluggable sources; reports adds, updates and removals.
import { urlCredentials } from '../util/redact.js';
import { sameCamera, type Camera } from './camera.js';

export interface CameraChangeListener {
  onAdded(camera: Camera): void;
  onUpdated(camera: Camera, previous: Camera): void;
  onRemoved(camera: Camera): void;
}

/**
 * The camera sources, highest priority first: when two sources name the same camera id, the earlier one's
 * camera is the one recorded (a camera in this node's configuration file overrides the database's and the
 * cluster's version of it).
 */
export const CAMERA_SOURCE_PRIORITY = ['file', 'database', 'cluster'] as const;
export type CameraSourceName = (typeof CAMERA_SOURCE_PRIORITY)[number];

/**
 * Each source (config file, database, cluster) publishes its whole current list; the registry
 * merges them by CAMERA_SOURCE_PRIORITY, whatever order they publish in, and reports only the differences.
 */
export class CameraRegistry {
  readonly #sources = new Map<CameraSourceName, Camera[]>();
  #effective = new Map<string, Camera>();
  readonly #listeners: CameraChangeListener[] = [];
  /** Passwords of every camera ever published; kept after removal so late log lines stay clean. */
  readonly #secrets = new Set<string>();

  listen(listener: CameraChangeListener): void {
    this.#listeners.push(listener);
  }

  /** Replace everything a source says; returns the ids added, updated and removed. */
  publish(sourceName: CameraSourceName, cameras: readonly Camera[]): { added: string[]; updated: string[]; removed: string[] } {
    this.#sources.set(sourceName, [...cameras]);
    for (const cam of cameras) this.#rememberSecrets(cam);
    const next = new Map<string, Camera>();
    for (const source of CAMERA_SOURCE_PRIORITY) {
      for (const cam of this.#sources.get(source) ?? []) if (!next.has(cam.id)) next.set(cam.id, cam);
    }
    const previous = this.#effective;
    this.#effective = next;
    const result = { added: [] as string[], updated: [] as string[], removed: [] as string[] };
    for (const [id, cam] of previous) {
      if (!next.has(id)) {
        result.removed.push(id);
        for (const l of this.#listeners) l.onRemoved(cam);
      }
    }
    for (const [id, cam] of next) {
      const before = previous.get(id);
      if (before === undefined) {
        result.added.push(id);
        for (const l of this.#listeners) l.onAdded(cam);
      } else if (!sameCamera(before, cam)) {
        result.updated.push(id);
        for (const l of this.#listeners) l.onUpdated(cam, before);
      }
    }
    return result;
  }

  get(id: string): Camera | undefined {
    return this.#effective.get(id);
  }

  list(): Camera[] {
    return [...this.#effective.values()];
  }

  /** Every password any camera carries (or carried), for log scrubbing. */
  secrets(): Iterable<string> {
    return this.#secrets;
  }

  #rememberSecrets(cam: Camera): void {
    for (const url of [cam.source, cam.snapuri]) {
      const creds = url === undefined ? undefined : urlCredentials(url);
      if (creds !== undefined && creds.password !== '') this.#secrets.add(creds.password);
    }
  }
}
