// A camera's archive as a user reads it on the loopback cluster (the shared scenario functions, 307s followed), and its rows per node.
import { largestGap, listSegments, loopbackDriver, spansOf, type ClusterDriver } from '@vigil/testing/kube/cluster-scenario';
import type { LoopbackCluster } from './cluster-fixture.js';
import { TOKENS } from './cluster-fixture.js';

/** The scenario driver of one node: its URL, a viewer token (admin for /cluster), kubectl with the admin kubeconfig. */
export function nodeDriver(fx: LoopbackCluster, node: string, token: string = TOKENS.viewer): ClusterDriver {
  const pod = fx.pods.get(node);
  if (pod === undefined) throw new Error(`no recorder runs for ${node}`);
  return loopbackDriver({ apiBase: pod.url, token, kubectl: (args) => fx.cluster.kubectl(...args) });
}

/** The largest gap of a camera's archive in [fromMs, toMs), listed through `via`; the listing comes along for a failure message. */
export async function archiveGap(fx: LoopbackCluster, via: string, camera: string, fromMs: number, toMs: number): Promise<{ gapMs: number; listing: string }> {
  const { archive } = await listSegments(nodeDriver(fx, via), camera, fromMs / 1000, toMs / 1000);
  const spans = spansOf(archive, Date.now() / 1000);
  const gap = largestGap(spans, fromMs / 1000, toMs / 1000);
  const listing = spans.map((s) => `${new Date(s.start * 1000).toISOString().slice(11, 19)}–${new Date(s.end * 1000).toISOString().slice(11, 19)} ${s.filename.split('/').pop()}`).join('\n');
  return { gapMs: Math.round(gap.seconds * 1000), listing };
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
