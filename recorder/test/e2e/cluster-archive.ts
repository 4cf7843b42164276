// Reading a camera's archive the way a user would (listing through any node, 307 followed) and checking it: gaps, rows per node.
import type { LoopbackCluster } from './cluster-fixture.js';
import { TOKENS } from './cluster-fixture.js';

export interface ListedSegment {
  startMs: number;
  /** The listing's mtime: when the segment's media ends (epoch seconds → ms). */
  endMs: number;
  filename: string;
  isOpen: boolean;
}

/** GET the listing of [fromMs, toMs) from `node`, following one 307 the way a client repeats the request. */
export async function listArchive(fx: LoopbackCluster, via: string, camera: string, fromMs: number, toMs: number): Promise<ListedSegment[]> {
  const path = `/api/archive/${camera}/segments?from=${Math.floor(fromMs / 1000)}&to=${Math.ceil(toMs / 1000)}`;
  let res = await fx.api(via, path, { token: TOKENS.viewer });
  if (res.status === 307 && res.location !== null) {
    const followed = await fetch(res.location, { headers: { authorization: `Bearer ${TOKENS.viewer}` }, redirect: 'manual', signal: AbortSignal.timeout(30_000) });
    res = { status: followed.status, body: await followed.json(), location: null };
  }
  if (res.status !== 200) throw new Error(`listing ${camera} via ${via}: ${res.status} ${JSON.stringify(res.body)}`);
  const body = res.body as { archive: Array<{ timestamp: string; mtime: number; filename: string; is_open: boolean }> };
  return body.archive.map((s) => ({ startMs: Date.parse(s.timestamp), endMs: s.mtime * 1000, filename: s.filename, isOpen: s.is_open })).sort((a, b) => a.startMs - b.startMs);
}

/**
 * The longest stretch of [fromMs, toMs) that no segment covers (mtime has whole seconds: ±1 s). The window starts no
 * earlier than the first segment: a camera that began recording inside the window has no gap before it.
 */
export function largestGapMs(segments: readonly ListedSegment[], fromMs: number, toMs: number): number {
  const first = segments.find((s) => s.endMs > fromMs);
  let covered = Math.max(fromMs, first?.startMs ?? fromMs);
  let largest = 0;
  for (const s of segments) {
    if (s.endMs <= fromMs || s.startMs >= toMs) continue;
    if (s.startMs > covered) largest = Math.max(largest, s.startMs - covered);
    covered = Math.max(covered, s.endMs);
  }
  return Math.max(largest, toMs - covered);
}

/** recordings rows of a camera per node, and whether any (node, filename) appears twice. */
export async function recordingRows(fx: LoopbackCluster, camera: string): Promise<{ byNode: Map<string, string[]>; doubled: string[] }> {
  const pg = (await import('pg')).default;
  const client = new pg.Client({ connectionString: fx.db.url });
  await client.connect();
  try {
    const rows = (await client.query<{ node_name: string; filename: string }>('SELECT node_name, filename FROM recordings WHERE camera_id = $1', [camera])).rows;
    const byNode = new Map<string, string[]>();
    const seen = new Set<string>();
    const doubled: string[] = [];
    for (const r of rows) {
      const key = `${r.node_name}/${r.filename}`;
      if (seen.has(key)) doubled.push(key);
      seen.add(key);
      byNode.set(r.node_name, [...(byNode.get(r.node_name) ?? []), r.filename]);
    }
    return { byNode, doubled };
  } finally {
    await client.end();
  }
}

/** The segments as a short table for an assertion message. */
export function describeSegments(segments: readonly ListedSegment[]): string {
  return segments.map((s) => `${new Date(s.startMs).toISOString().slice(11, 19)}–${new Date(s.endMs).toISOString().slice(11, 19)} ${s.filename.split('/').pop()}${s.isOpen ? ' (open)' : ''}`).join('\n');
}

/** The largest gap of a camera's archive around an event, with the listing in the failure message. */
export async function archiveGap(fx: LoopbackCluster, via: string, camera: string, fromMs: number, toMs: number): Promise<{ gapMs: number; listing: string }> {
  const segments = await listArchive(fx, via, camera, fromMs, toMs);
  return { gapMs: largestGapMs(segments, fromMs, toMs), listing: describeSegments(segments) };
}
