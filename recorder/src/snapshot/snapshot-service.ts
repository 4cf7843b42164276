// A camera's current still: finds the camera and its credentials, then serves from the cache or one shared fetch.
import type { Logger } from 'pino';
import type { Camera } from '../cameras/camera.js';
import { redactText, urlCredentials } from '../util/redact.js';
import type { AuthSession, Credentials } from './digest-auth.js';
import { SingleFlightCache, type CachedValue } from './still-cache.js';
import { StillFetcher, type Still, type StillFetcherOptions } from './still-fetcher.js';
import { CameraNotFoundError } from '../cameras/camera-errors.js';
import { NoSnapshotUriError } from './snapshot-errors.js';

export const SNAPSHOT_CACHE_MS = 15_000;

export interface CameraLookup {
  get(id: string): Camera | undefined;
}

export interface SnapshotServiceOptions extends StillFetcherOptions {
  cameras: CameraLookup;
  log: Logger;
  /** Milliseconds since the epoch; the cache's clock. */
  now: () => number;
  cacheMs?: number;
  /** Told about cache hits, misses and camera fetch times (metrics); optional. */
  observer?: SnapshotObserver;
}

export interface SnapshotObserver {
  /** Answered from the cache or by a fetch already running: no new camera request. */
  hit(): void;
  /** Started a camera fetch. */
  miss(): void;
  upstream(seconds: number, outcome: 'ok' | 'error'): void;
}

interface CameraLogin {
  /** Which URL and credentials the session belongs to; a config change starts over. */
  key: string;
  state: { session: AuthSession | undefined };
}

export class SnapshotService {
  readonly #cameras: CameraLookup;
  readonly #log: Logger;
  readonly #fetcher: StillFetcher;
  readonly #cache: SingleFlightCache<Still>;
  readonly #logins = new Map<string, CameraLogin>();
  readonly #observer: SnapshotObserver | undefined;

  constructor(opts: SnapshotServiceOptions) {
    this.#cameras = opts.cameras;
    this.#log = opts.log.child({ component: 'snapshot' });
    this.#fetcher = new StillFetcher(opts);
    this.#cache = new SingleFlightCache<Still>(opts.cacheMs ?? SNAPSHOT_CACHE_MS, opts.now);
    this.#observer = opts.observer;
  }

  /** Throws CameraNotFoundError, NoSnapshotUriError, CameraAnswerError or CameraTimeoutError. */
  async snapshot(cameraId: string): Promise<CachedValue<Still>> {
    const camera = this.#cameras.get(cameraId);
    if (camera === undefined) throw new CameraNotFoundError(cameraId);
    if (camera.snapuri === undefined) throw new NoSnapshotUriError(cameraId);
    const snapuri = camera.snapuri;
    let fetched = false;
    // The cache decides synchronously whether to call the loader, so hit or miss is known before awaiting.
    const answer = this.#cache.get(cameraId, snapuri, () => {
      fetched = true;
      return this.#fetch(camera, snapuri);
    });
    if (fetched) this.#observer?.miss();
    else this.#observer?.hit();
    return answer;
  }

  async close(): Promise<void> {
    await this.#fetcher.close();
  }

  async #fetch(camera: Camera, snapuri: string): Promise<Still> {
    const url = new URL(snapuri);
    const credentials = credentialsFor(url, camera.source);
    url.username = '';
    url.password = '';
    const key = `${url.href}\n${credentials?.username ?? ''}\n${credentials?.password ?? ''}`;
    let login = this.#logins.get(camera.id);
    if (login?.key !== key) {
      login = { key, state: { session: undefined } };
      this.#logins.set(camera.id, login);
    }
    const started = Date.now();
    try {
      const still = await this.#fetcher.fetch({ url, credentials, auth: login.state });
      this.#observer?.upstream((Date.now() - started) / 1000, 'ok');
      this.#log.debug({ camera: camera.id, bytes: still.bytes.length, format: still.format, ms: Date.now() - started }, 'snapshot fetched');
      return still;
    } catch (err) {
      this.#observer?.upstream((Date.now() - started) / 1000, 'error');
      const message = redactText(err instanceof Error ? err.message : String(err), credentials === undefined ? [] : [credentials.password]);
      this.#log.warn({ camera: camera.id, ms: Date.now() - started, err: message }, 'snapshot fetch failed');
      throw err;
    }
  }
}

/** The snapshot URL's own credentials, else those of the stream URL (spec §5). */
function credentialsFor(snap: URL, source: string): Credentials | undefined {
  const own = urlCredentials(snap.href);
  if (own !== undefined) return own;
  return urlCredentials(source);
}
