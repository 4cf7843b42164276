// The credential relay: a loopback RTSP endpoint through which ffmpeg reads a camera, so that no password is ever in a command line.
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type Server } from 'node:net';
import type { RtspLogger } from './rtsp-connection.js';
import { RelayConnection, type RelayObserver, type RelayTarget } from './rtsp-relay-connection.js';
import { parseRtspUrl, type RtspUrl } from './rtsp-url.js';

export type { RelayObserver } from './rtsp-relay-connection.js';

export interface RtspRelayOptions {
  readonly log?: RtspLogger;
  /** Connecting to the camera (default 5 s). */
  readonly timeoutMs?: number;
  /** rtsps:// cameras only; default true. */
  readonly tlsRejectUnauthorized?: boolean;
}

export interface RelayLease {
  /** `rtsp://127.0.0.1:PORT/<token>`: what ffmpeg is given instead of the camera's URL. */
  readonly url: string;
  /** Forgets the token and closes the connections made with it. */
  release(): void;
}

/**
 * ffmpeg has no option that takes RTSP credentials except the URL, and a URL on a command line is readable by every
 * local user (`ps`, /proc/PID/cmdline). So ffmpeg is given `rtsp://127.0.0.1:PORT/<token>` instead: a random 128-bit
 * token, valid while that one run of ffmpeg lasts. The relay maps it to the camera, logs in for ffmpeg (Basic or
 * Digest, as the native client does) and passes everything else through. One relay serves every camera; it listens
 * on loopback only, from the first lease on.
 */
export class RtspRelay {
  readonly #opts: RtspRelayOptions;
  #server: Server | undefined;
  #listening: Promise<number> | undefined;
  readonly #targets = new Map<string, RelayTarget & { lease: string }>();
  readonly #connections = new Set<RelayConnection>();

  constructor(opts: RtspRelayOptions = {}) {
    this.#opts = opts;
  }

  /** A relay URL for the camera `cameraUrl` (credentials in its userinfo); `observer` hears the camera's answers. */
  async lease(cameraUrl: string, observer: RelayObserver = {}): Promise<RelayLease> {
    const url = parseRtspUrl(cameraUrl);
    const port = await this.#listen();
    const token = randomBytes(16).toString('hex');
    this.#targets.set(token, { url, observer, lease: token });
    return {
      url: `rtsp://127.0.0.1:${port}/${token}`,
      release: () => {
        for (const [key, target] of this.#targets) if (target.lease === token) this.#targets.delete(key);
        for (const conn of this.#connections) {
          const served = conn.token === undefined ? undefined : this.#targets.get(conn.token);
          if (conn.token !== undefined && served === undefined) conn.close();
        }
      },
    };
  }

  /** Closes every connection and stops listening. */
  async close(): Promise<void> {
    for (const conn of this.#connections) conn.close();
    this.#targets.clear();
    const server = this.#server;
    this.#server = undefined;
    this.#listening = undefined;
    if (server !== undefined) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  #listen(): Promise<number> {
    this.#listening ??= (async () => {
      const server = createServer((socket) => this.#accept(socket));
      this.#server = server;
      server.listen(0, '127.0.0.1');
      await once(server, 'listening');
      const address = server.address();
      if (address === null || typeof address === 'string') throw new Error('rtsp relay: no TCP address');
      return address.port;
    })();
    return this.#listening;
  }

  #accept(socket: import('node:net').Socket): void {
    const conn: RelayConnection = new RelayConnection(socket, {
      resolve: (uri) => this.#resolve(uri),
      redirect: (token, url) => this.#redirect(token, url),
      timeoutMs: this.#opts.timeoutMs ?? 5_000,
      tlsRejectUnauthorized: this.#opts.tlsRejectUnauthorized ?? true,
      log: this.#opts.log,
      onClose: () => this.#connections.delete(conn),
    });
    this.#connections.add(conn);
  }

  /** `rtsp://127.0.0.1:PORT/<token>[rest]` → the leased target and the rest of the path. */
  #resolve(uri: string): { token: string; target: RelayTarget; rest: string } | undefined {
    const m = /^rtsp:\/\/(?:127\.0\.0\.1|localhost)(?::\d+)?\/([0-9a-f]{32})(.*)$/i.exec(uri);
    if (m === null) return undefined;
    const token = (m[1] as string).toLowerCase();
    const target = this.#targets.get(token);
    return target === undefined ? undefined : { token, target, rest: m[2] ?? '' };
  }

  /** A camera redirected: the new place gets a token of its own, released with the lease of `token`. */
  #redirect(token: string, url: RtspUrl): string {
    const from = this.#targets.get(token);
    const port = this.#server?.address();
    if (from === undefined || port === null || port === undefined || typeof port === 'string') throw new Error('rtsp relay: redirect without a lease');
    const next = randomBytes(16).toString('hex');
    this.#targets.set(next, { url, observer: from.observer, lease: from.lease });
    return `rtsp://127.0.0.1:${port.port}/${next}`;
  }
}
