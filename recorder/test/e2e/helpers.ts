// Shared steps of the end-to-end tests: segments on disk, HTTP calls, tokens.
import { readdir, stat } from 'node:fs/promises';
import { join, relative } from 'node:path';

/** Every closed-looking segment file under record_path, sorted by name (relative paths). */
export async function segmentFiles(recordPath: string, suffix = '.mp4'): Promise<string[]> {
  const out: string[] = [];
  async function walk(dir: string): Promise<void> {
    for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
      const full = join(dir, entry.name);
      if (entry.isDirectory()) await walk(full);
      else if (entry.name.endsWith(suffix)) out.push(relative(recordPath, full));
    }
  }
  await walk(recordPath);
  return out.sort();
}

export function sequenceOf(filename: string): number {
  const m = /_(\d+)\.mp4(?:\.part)?$/.exec(filename);
  return m === null ? -1 : Number(m[1]);
}

export async function fileSize(path: string): Promise<number> {
  return (await stat(path)).size;
}

export async function getJson(url: string, token?: string): Promise<{ status: number; body: unknown; headers: Headers }> {
  const res = await fetch(url, { headers: token === undefined ? {} : { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(15_000) });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: res.status, body, headers: res.headers };
}

export async function postJson(url: string, payload: unknown, token?: string): Promise<{ status: number; body: unknown }> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (token !== undefined) headers['authorization'] = `Bearer ${token}`;
  const res = await fetch(url, { method: 'POST', headers, body: typeof payload === 'string' ? payload : JSON.stringify(payload), signal: AbortSignal.timeout(30_000) });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: res.status, body };
}

/** The file a camera is writing now (GET /api/archive/{id}/current), or undefined while it writes none. */
export async function currentFilename(url: string, cameraId: string): Promise<string | undefined> {
  const r = await getJson(`${url}/api/archive/${cameraId}/current`);
  return r.status === 200 ? (r.body as { filename: string }).filename : undefined;
}
