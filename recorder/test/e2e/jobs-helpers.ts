// Steps shared by the archive job tests: submit, wait for a state, download.
import { chmod, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { waitUntil } from '@vigil/testing/processes';
import { getJson } from './helpers.js';

export interface JobView {
  job_id: string;
  state: string;
  reason?: string;
  message?: string;
  size_bytes?: number;
  progress: number;
  kind: string;
  speed?: number;
  from: number;
  to: number;
  completed_at?: number;
}

export async function submit(base: string, path: string, token?: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const headers: Record<string, string> = {};
  if (token !== undefined) headers['authorization'] = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${base}${path}`, { method: 'POST', headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

export async function job(base: string, id: string, token?: string): Promise<JobView> {
  return (await getJson(`${base}/api/archive/jobs/${id}`, token)).body as JobView;
}

export async function waitForJob(base: string, id: string, states: string[], timeoutMs = 60_000, token?: string): Promise<JobView> {
  let last: JobView | undefined;
  await waitUntil(async () => {
    last = await job(base, id, token);
    return states.includes(last.state);
  }, timeoutMs, `job ${id} to reach ${states.join('/')}`);
  return last as JobView;
}

/** A real ffmpeg behind a wrapper that waits first: jobs take long enough to watch the queue. */
export async function slowMediaTool(dir: string, seconds: number): Promise<string> {
  const path = join(dir, 'slow-ffmpeg.sh');
  await writeFile(path, `#!/bin/sh\nsleep ${seconds}\nexec ffmpeg "$@"\n`);
  await chmod(path, 0o755);
  return path;
}
