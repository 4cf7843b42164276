// Delegated multi-node assembly: fetch finished parts from peers in parallel, join them by ordinal.
import { createWriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Dispatcher } from 'undici';
import { COPY_OUTPUT_ARGS, ensureSpace, produce, timelapseOutputArgs } from './archive-job-runners.js';
import { writePlainConcatList } from './export-plan.js';
import type { JobRunContext, JobRunner } from './job-queue.js';
import { JobFailure, type AssemblePart, type JobRecord } from './job-record.js';

export interface AssembleDeps {
  mediaTool: string;
  workDir: string;
  minFreeBytes: number;
  /** Bearer token peers accept for node-to-node downloads (undefined: none sent). */
  clusterToken(): string | undefined;
  /** Base URL of a known peer; the route refused unknown ones, so undefined here means it left meanwhile. */
  peerUrl(peerAddr: string): string | undefined;
  /** The connection pool for peers (TLS: their certificates checked against the cluster's CA); default undici's global one. */
  /** The pool to fetch a part from `peerAddr` with (its certificate checked as that peer). */
  peerDispatcher?(peerAddr: string): Promise<Dispatcher>;
  /** Per-part download deadline. */
  partTimeoutMs?: number;
}

async function fetchPart(part: AssemblePart, target: string, deps: AssembleDeps, signal: AbortSignal): Promise<void> {
  const base = deps.peerUrl(part.peer_addr);
  const token = deps.clusterToken();
  try {
    if (base === undefined) throw new Error('it is no longer a known cluster peer');
    const url = `${base}/api/archive/jobs/${encodeURIComponent(part.peer_job_id)}/download`;
    // Loaded at the first assembly: an HTTP client is a few MiB of memory a recorder that never assembles does not need.
    const { request } = await import('undici');
    const dispatcher = await deps.peerDispatcher?.(part.peer_addr);
    const res = await request(url, {
      method: 'GET',
      ...(dispatcher === undefined ? {} : { dispatcher }),
      headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
      signal,
      headersTimeout: deps.partTimeoutMs ?? 30_000,
      bodyTimeout: deps.partTimeoutMs ?? 30_000,
    });
    if (res.statusCode !== 200) {
      await res.body.dump();
      throw new Error(`answered ${res.statusCode}${res.statusCode === 202 ? ' (part still processing)' : ''}`);
    }
    await pipeline(res.body, createWriteStream(target));
  } catch (err) {
    throw new JobFailure('peer_unreachable', `part ${part.ordinal} (job ${part.peer_job_id}) from peer ${part.peer_addr} cannot be fetched: ${(err as Error).message}`);
  }
}

export function assembleRunner(deps: AssembleDeps): JobRunner {
  return async (job: JobRecord, ctx: JobRunContext) => {
    const parts = [...(job.parts ?? [])].sort((a, b) => a.ordinal - b.ordinal);
    await mkdir(ctx.scratchDir, { recursive: true });
    const files = parts.map((p) => join(ctx.scratchDir, `part-${p.ordinal}.mp4`));
    const results = await Promise.allSettled(parts.map((p, i) => fetchPart(p, files[i] as string, deps, ctx.signal)));
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed !== undefined) throw failed.reason;
    ctx.progress(0.5);
    await ensureSpace(deps.workDir, 0, deps.minFreeBytes);
    const listPath = await writePlainConcatList(files, ctx.scratchDir);
    const output = job.kind === 'timelapse' ? timelapseOutputArgs(job.speed ?? 2) : COPY_OUTPUT_ARGS;
    await produce(ctx, deps.mediaTool, ['-f', 'concat', '-safe', '0', '-i', listPath], output, 0);
  };
}
