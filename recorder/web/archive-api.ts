// The archive endpoints as the archive page calls them: listing, play URL, export and time-lapse jobs.
import type { ApiClient } from './api-client.js';

/** The longest window play, export and time-lapse take. */
const MAX_WINDOW_S = 4 * 3600;

export interface SegmentRecord {
  timestamp: string;
  sequence: number;
  filename: string;
  size: number;
  mtime: number;
  is_open: boolean;
}

export interface Listing {
  archive: SegmentRecord[];
  days: string[];
}

export interface JobRecord {
  job_id: string;
  state: 'pending' | 'running' | 'done' | 'failed';
  progress?: number;
  reason?: string;
  message?: string;
  size_bytes?: number;
}

export type ApiResult<T> = { ok: true; value: T } | { ok: false; status: number; message: string };

/**
 * Every call carries the token as ?access_token= and no custom header: a camera of another node is answered there,
 * through a 307 to another origin, and a browser neither keeps an Authorization header across such a redirect nor
 * sends one to another origin without asking first.
 */
export class ArchiveApi {
  readonly #client: ApiClient;

  constructor(client: ApiClient) {
    this.#client = client;
  }

  /** `base` '' for this node; a camera's node for calls that are never redirected (export, jobs). */
  url(base: string, path: string, query: Record<string, string | number> = {}): string {
    const params = new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)]));
    const token = this.#client.token;
    if (token !== null) params.set('access_token', token);
    const q = params.toString();
    return `${base.replace(/\/+$/, '')}${path}${q === '' ? '' : `?${q}`}`;
  }

  listing(cameraId: string, fromMs: number, toMs: number, tzOffsetMinutes: number): Promise<ApiResult<Listing>> {
    const path = `/api/archive/${encodeURIComponent(cameraId)}/segments`;
    return this.#json(this.url('', path, { from: Math.floor(fromMs / 1000), to: Math.ceil(toMs / 1000), tz_offset_minutes: tzOffsetMinutes }));
  }

  /** The window in whole seconds, at most the 4 hours the API allows. */
  playUrl(cameraId: string, fromMs: number, toMs: number): string {
    const from = Math.floor(fromMs / 1000);
    return this.url('', `/api/archive/${encodeURIComponent(cameraId)}/play`, { from, to: Math.min(Math.ceil(toMs / 1000), from + MAX_WINDOW_S) });
  }

  submitJob(base: string, cameraId: string, kind: 'export' | 'timelapse', fromMs: number, toMs: number, speed?: number): Promise<ApiResult<{ job_id: string; status_url: string; download_url: string }>> {
    const query: Record<string, number> = { from: Math.floor(fromMs / 1000), to: Math.ceil(toMs / 1000) };
    if (speed !== undefined) query['speed'] = speed;
    return this.#json(this.url(base, `/api/archive/${encodeURIComponent(cameraId)}/${kind}`, query), 'POST');
  }

  job(base: string, statusUrl: string): Promise<ApiResult<JobRecord>> {
    return this.#json(this.url(base, statusUrl));
  }

  async #json<T>(url: string, method = 'GET'): Promise<ApiResult<T>> {
    let res: Response;
    try {
      res = await fetch(url, { method, cache: 'no-store' });
    } catch (err) {
      return { ok: false, status: 0, message: `the recorder cannot be reached (${String(err)})` };
    }
    const body = (await res.json().catch(() => null)) as (T & { error?: { message?: string } }) | null;
    if (!res.ok) return { ok: false, status: res.status, message: body?.error?.message ?? `HTTP ${res.status}` };
    return { ok: true, value: body as T };
  }
}
