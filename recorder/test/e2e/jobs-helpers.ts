// Steps shared by the archive job tests: submit, wait for a state, a slow media tool, the parts of a delegated assembly.
import assert from 'node:assert/strict';
import { chmod, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { probe, type ProbeResult } from '@vigil/testing/media-probe';
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

/** One part of an /assemble request: a finished job on a peer and its place in the result. */
export interface AssemblePart {
  peer_addr: string;
  peer_job_id: unknown;
  ordinal: number;
}

/**
 * Two exports of `camera` on the recorder at `base`, back to back and ending 2 s ago, `seconds` each, waited for until
 * done; as the parts (in time order: ordinals 0 and 1) of an /assemble request naming that recorder as the peer.
 */
export async function exportTwoParts(base: string, camera: string, seconds: number, token: string): Promise<AssemblePart[]> {
  const end = Math.floor(Date.now() / 1000) - 2;
  const parts: AssemblePart[] = [];
  for (const [ordinal, from] of [end - 2 * seconds, end - seconds].entries()) {
    const exported = await submit(base, `/api/archive/${camera}/export?from=${from}&to=${from + seconds}`, token);
    const id = exported.body['job_id'] as string;
    assert.equal((await waitForJob(base, id, ['done', 'failed'], 60_000, token)).state, 'done');
    parts.push({ peer_addr: new URL(base).host, peer_job_id: id, ordinal });
  }
  return parts;
}

/** An export of `parts` assembled by `recorder`, asked for with `clusterToken` and followed with `token`: asserted done, its file probed. */
export async function assembleExport(
  recorder: { url: string; workDir: string },
  camera: string,
  parts: AssemblePart[],
  clusterToken: string,
  token: string,
): Promise<ProbeResult> {
  const asm = await submit(recorder.url, `/api/archive/${camera}/assemble`, clusterToken, { kind: 'export', parts });
  assert.equal(asm.status, 202);
  const done = await waitForJob(recorder.url, asm.body['job_id'] as string, ['done', 'failed'], 60_000, token);
  assert.equal(done.state, 'done', done.message);
  return probe(join(recorder.workDir, 'jobs', `${done.job_id}.mp4`));
}
