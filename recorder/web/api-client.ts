// Talks to the recorder API from the page: the token kept in sessionStorage (sent as a header only), tickets, the camera list, the socket URL.
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

  /** The token as a header: the only way it leaves the page (never in a URL, where logs would keep it). */
  authHeaders(): Record<string, string> {
    const token = this.token;
    return token === null ? {} : { Authorization: `Bearer ${token}` };
  }

  /**
   * A short-lived ticket (POST /api/tickets on the node `base`, '' for this one) for a URL that cannot carry a header:
   * the live socket, a download link. Undefined without a token (a recorder with auth disabled needs none).
   */
  async ticket(base: string, scope: { purpose: 'live' | 'media'; camera_id: string } | { purpose: 'download'; job_id: string }): Promise<string | undefined> {
    if (this.token === null) return undefined;
    const res = await fetch(`${base.replace(/\/+$/, '')}/api/tickets`, { method: 'POST', headers: { ...this.authHeaders(), 'Content-Type': 'application/json' }, body: JSON.stringify(scope), cache: 'no-store' });
    const body = (await res.json().catch(() => null)) as { ticket?: string; error?: { message?: string } } | null;
    if (!res.ok || typeof body?.ticket !== 'string') throw new Error(body?.error?.message ?? `no ticket (HTTP ${res.status})`);
    return body.ticket;
  }

  async cameras(): Promise<CameraListResult> {
    let res: Response;
    try {
      res = await fetch('/api/cameras', { headers: this.authHeaders(), cache: 'no-store' });
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
   * not follow redirects on a WebSocket). Browsers cannot set headers on one, so it carries a ticket for this camera's
   * live view, minted by that node a moment before.
   */
  async socketUrl(camera: CameraInfo): Promise<string> {
    const base = new URL(camera.url ?? location.origin);
    const scheme = base.protocol === 'https:' ? 'wss:' : 'ws:';
    const ticket = await this.ticket(camera.url ?? '', { purpose: 'live', camera_id: camera.id });
    const query = ticket === undefined ? '' : `?ticket=${encodeURIComponent(ticket)}`;
    return `${scheme}//${base.host}${base.pathname.replace(/\/+$/, '')}/websocket/${encodeURIComponent(camera.id)}${query}`;
  }
}
