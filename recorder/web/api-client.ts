// Talks to the recorder API from the page: the token kept in sessionStorage, the camera list, the socket URL.
import type { CameraInfo } from './live-tile.js';

const TOKEN_KEY = 'vigil.token';

export type CameraListResult =
  | { kind: 'ok'; cameras: CameraInfo[] }
  | { kind: 'unauthorized'; message: string }
  | { kind: 'failed'; message: string };

export class ApiClient {
  get token(): string | null {
    return sessionStorage.getItem(TOKEN_KEY);
  }

  setToken(token: string): void {
    if (token === '') sessionStorage.removeItem(TOKEN_KEY);
    else sessionStorage.setItem(TOKEN_KEY, token);
  }

  async cameras(): Promise<CameraListResult> {
    const token = this.token;
    let res: Response;
    try {
      res = await fetch('/api/cameras', { headers: token === null ? {} : { Authorization: `Bearer ${token}` }, cache: 'no-store' });
    } catch (err) {
      return { kind: 'failed', message: `the recorder cannot be reached (${String(err)})` };
    }
    if (res.status === 401 || res.status === 403) {
      const body = (await res.json().catch(() => null)) as { error?: { message?: string } } | null;
      return { kind: 'unauthorized', message: body?.error?.message ?? `HTTP ${res.status}` };
    }
    if (!res.ok) return { kind: 'failed', message: `GET /api/cameras answered ${res.status}` };
    return { kind: 'ok', cameras: (await res.json()) as CameraInfo[] };
  }

  /**
   * The camera's live socket on the node that records it (this one, or `camera.url` in a cluster: browsers do
   * not follow redirects on a WebSocket). Browsers cannot set headers on one, so the token travels as ?access_token=.
   */
  socketUrl(camera: CameraInfo): string {
    const base = new URL(camera.url ?? location.origin);
    const scheme = base.protocol === 'https:' ? 'wss:' : 'ws:';
    const token = this.token;
    const query = token === null ? '' : `?access_token=${encodeURIComponent(token)}`;
    return `${scheme}//${base.host}${base.pathname.replace(/\/+$/, '')}/websocket/${encodeURIComponent(camera.id)}${query}`;
  }
}
