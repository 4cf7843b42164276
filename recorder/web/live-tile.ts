// One camera tile: a <video>, its WebSocket connection and MSE player, reconnecting with backoff.
import { codecsFromInit } from './init-codec.js';
import { MsePlayer, type PlayerStats } from './mse-player.js';

export interface CameraInfo {
  id: string;
  state: 'recording' | 'stalled' | 'stopped';
  codec: string | null;
  width: number | null;
  height: number | null;
  ptz: boolean;
  /** The node that records the camera. */
  node: string;
  /** That node's base URL when it is not the one serving this page (a cluster), else null. */
  url: string | null;
}

export interface TileStats extends PlayerStats {
  connections: number;
  /** performance.now() when the current connection opened. */
  openedAt: number | undefined;
  /** Milliseconds from the socket opening to the first frame on screen, for the current connection. */
  firstFrameMs: number | undefined;
  lastClose: { code: number; reason: string } | undefined;
  /** Why the player last gave up on a connection, if it did. */
  lastError: string | undefined;
}

export interface TileDeps {
  /** The camera's socket URL with a fresh ticket; rejects when none can be had (the token refused, the node away). */
  socketUrl(camera: CameraInfo): Promise<string>;
  /** Called when a connection failed before opening (maybe a token problem: the upgrade answered 401). */
  onConnectFailed(): void;
}

const BACKOFF_FIRST_MS = 500;
const BACKOFF_MAX_MS = 10_000;

const CLOSE_TEXT: Record<number, string> = {
  1001: 'server restarting',
  4404: 'camera unknown',
  4408: 'no picture from the camera yet',
  4410: 'stream ended',
};

export class LiveTile {
  readonly element: HTMLElement;
  readonly #video: HTMLVideoElement;
  readonly #status: HTMLElement;
  readonly #badge: HTMLElement;
  readonly #deps: TileDeps;
  #camera: CameraInfo;
  #socket: WebSocket | undefined;
  #player: MsePlayer | undefined;
  #retry: number | undefined;
  #failures = 0;
  #stopped = false;
  #connections = 0;
  #openedAt: number | undefined;
  #lastClose: { code: number; reason: string } | undefined;
  #lastError: string | undefined;
  /** A ticket for the next connection is being asked for. */
  #connecting = false;

  constructor(camera: CameraInfo, deps: TileDeps) {
    this.#camera = camera;
    this.#deps = deps;
    this.element = document.createElement('section');
    this.element.className = 'tile';
    this.element.dataset['camera'] = camera.id;
    const title = document.createElement('header');
    const name = document.createElement('span');
    name.textContent = camera.id;
    this.#badge = document.createElement('span');
    this.#badge.className = 'badge';
    // The camera's recordings: the archive page with this camera, at today's timeline.
    const archive = document.createElement('a');
    archive.className = 'archive-link';
    archive.href = `/archive?camera=${encodeURIComponent(camera.id)}`;
    archive.textContent = 'archive';
    archive.title = `recordings of ${camera.id}`;
    const right = document.createElement('span');
    right.append(archive, ' ', this.#badge);
    title.append(name, right);
    this.#video = document.createElement('video');
    this.#video.muted = true;
    this.#video.autoplay = true;
    this.#video.playsInline = true;
    this.#video.dataset['camera'] = camera.id;
    this.#status = document.createElement('div');
    this.#status.className = 'status';
    this.element.append(title, this.#video, this.#status);
    this.update(camera);
  }

  get id(): string {
    return this.#camera.id;
  }

  update(camera: CameraInfo): void {
    this.#camera = camera;
    this.#badge.textContent = camera.state;
    this.#badge.dataset['state'] = camera.state;
  }

  stats(): TileStats {
    const p = this.#player?.stats ?? { appended: 0, bytes: 0, firstFrameAt: undefined, liveEdgeJumps: 0, stalls: 0, trims: 0 };
    const firstFrameMs = p.firstFrameAt !== undefined && this.#openedAt !== undefined ? p.firstFrameAt - this.#openedAt : undefined;
    return { ...p, connections: this.#connections, openedAt: this.#openedAt, firstFrameMs, lastClose: this.#lastClose, lastError: this.#lastError };
  }

  start(): void {
    this.#stopped = false;
    if (this.#socket === undefined && this.#retry === undefined && !this.#connecting) this.#connect();
  }

  stop(): void {
    this.#stopped = true;
    window.clearTimeout(this.#retry);
    this.#retry = undefined;
    this.#socket?.close(1000, 'viewer left');
    this.#teardown();
  }

  #connect(): void {
    this.#retry = undefined;
    this.#setStatus('connecting…');
    this.#connecting = true;
    this.#deps.socketUrl(this.#camera).then(
      (url) => {
        this.#connecting = false;
        if (!this.#stopped) this.#open(url);
      },
      (err: unknown) => {
        this.#connecting = false;
        if (this.#stopped) return;
        this.#deps.onConnectFailed();
        this.#retryLater(err instanceof Error ? err.message : String(err));
      },
    );
  }

  #retryLater(why: string): void {
    this.#failures++;
    const delay = Math.min(BACKOFF_MAX_MS, BACKOFF_FIRST_MS * 2 ** (this.#failures - 1)) * (0.75 + Math.random() * 0.5);
    this.#setStatus(`${why}; retrying in ${Math.round(delay / 100) / 10} s`);
    this.#retry = window.setTimeout(() => this.#connect(), delay);
  }

  #open(url: string): void {
    const socket = new WebSocket(url);
    socket.binaryType = 'arraybuffer';
    /** Why this connection's player gave up, if it did: the retry status says it instead of the close code. */
    let playerError: string | undefined;
    const giveUp = (why: string, closeReason: string): void => {
      playerError = why;
      this.#lastError = why;
      this.#setStatus(why);
      socket.close(1000, closeReason);
    };
    const player = new MsePlayer(this.#video, (why) => giveUp(why, 'player failed'));
    this.#socket = socket;
    this.#player = player;
    this.#connections++;
    let opened = false;
    let gotInit = false;
    socket.onopen = () => {
      opened = true;
      this.#openedAt = performance.now();
      this.#setStatus('waiting for the picture…');
    };
    socket.onmessage = (ev: MessageEvent<ArrayBuffer>) => {
      if (gotInit) {
        player.append(ev.data);
        return;
      }
      gotInit = true;
      this.#failures = 0;
      const codecs = codecsFromInit(ev.data) ?? this.#camera.codec;
      if (codecs === null) {
        player.detach();
        giveUp('the stream codec is not known', 'unknown codec');
        return;
      }
      player.start(ev.data, codecs).then(
        () => this.#setStatus(''),
        (err: unknown) => giveUp(err instanceof Error ? err.message : String(err), 'cannot play'),
      );
    };
    socket.onclose = (ev) => {
      if (this.#socket !== socket) return;
      this.#lastClose = { code: ev.code, reason: ev.reason };
      this.#teardown();
      if (this.#stopped) return;
      if (!opened) this.#deps.onConnectFailed();
      this.#retryLater(playerError ?? CLOSE_TEXT[ev.code] ?? 'disconnected');
    };
  }

  #teardown(): void {
    this.#player?.detach();
    this.#player = undefined;
    this.#socket = undefined;
  }

  #setStatus(text: string): void {
    this.#status.textContent = text;
    this.#status.hidden = text === '';
  }
}
