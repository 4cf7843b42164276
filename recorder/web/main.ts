// Entry of the page: the live grid at / (asks for a token when needed, a tile per camera, kept current), the archive at /archive.
import { ApiClient } from './api-client.js';
import { startArchivePage } from './archive-entry.js';
import { LiveTile, type CameraInfo, type TileStats } from './live-tile.js';

const REFRESH_MS = 15_000;

declare global {
  interface Window {
    /** Diagnostics for operators (and the tests): per-camera playback figures. */
    vigilLive?: { stats(): Record<string, TileStats> };
  }
}

function element<T extends HTMLElement>(id: string): T {
  const el = document.getElementById(id);
  if (el === null) throw new Error(`the page has no #${id}`);
  return el as T;
}

class LiveGrid {
  readonly #api = new ApiClient();
  readonly #tiles = new Map<string, LiveTile>();
  readonly #grid = element<HTMLElement>('grid');
  readonly #message = element<HTMLElement>('message');
  readonly #form = element<HTMLFormElement>('token-form');
  readonly #tokenInput = element<HTMLInputElement>('token');
  #refreshing: Promise<void> | undefined;

  constructor() {
    this.#form.addEventListener('submit', (ev) => {
      ev.preventDefault();
      this.#api.setToken(this.#tokenInput.value.trim());
      this.#tokenInput.value = '';
      void this.refresh();
    });
    window.setInterval(() => void this.refresh(), REFRESH_MS);
    window.vigilLive = { stats: () => Object.fromEntries([...this.#tiles].map(([id, tile]) => [id, tile.stats()])) };
  }

  refresh(): Promise<void> {
    this.#refreshing ??= this.#load().finally(() => {
      this.#refreshing = undefined;
    });
    return this.#refreshing;
  }

  async #load(): Promise<void> {
    const result = await this.#api.cameras();
    if (result.kind === 'unauthorized') {
      for (const tile of this.#tiles.values()) tile.stop();
      this.#tiles.clear();
      this.#grid.replaceChildren();
      this.#show(this.#api.token === null ? 'This recorder needs an access token.' : `The token was refused: ${result.message}`, true);
      return;
    }
    if (result.kind === 'failed') {
      this.#show(result.message, false);
      return;
    }
    this.#show(result.cameras.length === 0 ? 'This node has no cameras.' : '', false);
    this.#apply(result.cameras);
  }

  #apply(cameras: CameraInfo[]): void {
    const seen = new Set<string>();
    for (const camera of cameras) {
      seen.add(camera.id);
      let tile = this.#tiles.get(camera.id);
      if (tile === undefined) {
        tile = new LiveTile(camera, {
          socketUrl: (camera) => this.#api.socketUrl(camera),
          onConnectFailed: () => void this.refresh(),
        });
        this.#tiles.set(camera.id, tile);
        this.#grid.append(tile.element);
        tile.start();
      } else {
        tile.update(camera);
      }
    }
    for (const [id, tile] of this.#tiles) {
      if (seen.has(id)) continue;
      tile.stop();
      tile.element.remove();
      this.#tiles.delete(id);
    }
  }

  #show(text: string, askToken: boolean): void {
    this.#message.textContent = text;
    this.#message.hidden = text === '';
    this.#form.hidden = !askToken;
    if (askToken) this.#tokenInput.focus();
  }
}

if (location.pathname === '/archive') startArchivePage();
else void new LiveGrid().refresh();
