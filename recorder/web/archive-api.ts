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
 * Every call goes straight to the node that records the camera (`base`, from GET /api/cameras; '' for this one) with
 * the token in the Authorization header, never in the URL: a 307 to another origin would drop the header, and the
 * other node answers the browser's preflight for it. A download link, which cannot carry a header, gets a ticket.
 */
export class ArchiveApi {
  readonly #client: ApiClient;

  constructor(client: ApiClient) {
    this.#client = client;
  }

  /** `base` '' for this node; a camera's node for calls that are never redirected (export, jobs). */
  url(base: string, path: string, query: Record<string, string | number> = {}): string {
    const q = new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)])).toString();
    return `${base.replace(/\/+$/, '')}${path}${q === '' ? '' : `?${q}`}`;
  }

  listing(base: string, cameraId: string, fromMs: number, toMs: number, tzOffsetMinutes: number): Promise<ApiResult<Listing>> {
    const path = `/api/archive/${encodeURIComponent(cameraId)}/segments`;
    return this.#json(this.url(base, path, { from: Math.floor(fromMs / 1000), to: Math.ceil(toMs / 1000), tz_offset_minutes: tzOffsetMinutes }));
  }

  /** The window in whole seconds, at most the 4 hours the API allows. */
  playUrl(base: string, cameraId: string, fromMs: number, toMs: number): string {
    const from = Math.floor(fromMs / 1000);
    return this.url(base, `/api/archive/${encodeURIComponent(cameraId)}/play`, { from, to: Math.min(Math.ceil(toMs / 1000), from + MAX_WINDOW_S) });
  }

  submitJob(base: string, cameraId: string, kind: 'export' | 'timelapse', fromMs: number, toMs: number, speed?: number): Promise<ApiResult<{ job_id: string; status_url: string; download_url: string }>> {
    const query: Record<string, number> = { from: Math.floor(fromMs / 1000), to: Math.ceil(toMs / 1000) };
    if (speed !== undefined) query['speed'] = speed;
    return this.#json(this.url(base, `/api/archive/${encodeURIComponent(cameraId)}/${kind}`, query), 'POST');
  }

  job(base: string, statusUrl: string): Promise<ApiResult<JobRecord>> {
    return this.#json(this.url(base, statusUrl));
  }

  /** The token as a header, for the calls made elsewhere (the play stream). */
  headers(): Record<string, string> {
    return this.#client.authHeaders();
  }

  /** A job's download link (a link cannot carry a header): with a ticket for that job, minted now by its node. */
  async downloadUrl(base: string, jobId: string, downloadPath: string): Promise<string> {
    const ticket = await this.#client.ticket(base, { purpose: 'download', job_id: jobId });
    return this.url(base, downloadPath, { download: 1, ...(ticket === undefined ? {} : { ticket }) });
  }

  async #json<T>(url: string, method = 'GET'): Promise<ApiResult<T>> {
    let res: Response;
    try {
      res = await fetch(url, { method, headers: this.#client.authHeaders(), cache: 'no-store' });
    } catch (err) {
      return { ok: false, status: 0, message: `the recorder cannot be reached (${String(err)})` };
    }
    const body = (await res.json().catch(() => null)) as (T & { error?: { message?: string } }) | null;
    if (!res.ok) return { ok: false, status: res.status, message: body?.error?.message ?? `HTTP ${res.status}` };
    return { ok: true, value: body as T };
  }
}
