// GET /cluster/metrics: the operator holding the leader Lease, quorum, and every RecorderNode as this node sees them
// (the Leases, the nodes' heartbeats and the operator's, are read when asked: this node does not watch them).
import { DEFAULT_NODE_SILENCE_SECONDS, nodeLeaseName, NODE_SILENCE_ANNOTATION, OPERATOR_LEASE_NAME } from '@vigil/crds';
import { fromApiTime, nodeViews, quorumOf, reportOf, silenceMsOf, type Lease } from '@vigil/kube';
import type { ClusterLookups } from './cluster-lookups.js';
import type { ClusterView } from './cluster-view.js';

export interface ClusterNodeEntry {
  node_name: string;
  online: boolean;
  member: boolean;
  /** epoch ms of the last heartbeat; the HTTP layer formats it. */
  last_heartbeat: number | null;
  url: string | null;
  version: string | null;
  cameras: number;
}

export interface ClusterMetrics {
  leader: string | null;
  quorum: boolean;
  nodes: ClusterNodeEntry[];
}

export async function clusterMetrics(view: ClusterView, lookups: ClusterLookups, now: () => number): Promise<ClusterMetrics> {
  // The API cannot be reached and the Leases were never read: no heartbeat is known (every node offline, no quorum).
  const leases = new Map<string, Lease>((await lookups.leases().catch(() => [])).map((l) => [l.metadata.name ?? '', l]));
  const nowMs = now();
  const lease = leases.get(OPERATOR_LEASE_NAME);
  const holder = lease?.spec?.holderIdentity ?? '';
  const renewed = fromApiTime(lease?.spec?.renewTime ?? undefined);
  const durationMs = (lease?.spec?.leaseDurationSeconds ?? 0) * 1000;
  const leader = holder !== '' && renewed !== undefined && nowMs - renewed <= durationMs ? holder : null;
  // The operator's own silence rule (published on its Lease), so both judge a node online alike.
  const silenceMs = silenceMsOf(lease?.metadata.annotations?.[NODE_SILENCE_ANNOTATION], DEFAULT_NODE_SILENCE_SECONDS);
  const views = nodeViews(view.recorderNodes.list(), (name) => leases.get(name), () => undefined, nowMs, silenceMs);
  return {
    leader,
    quorum: quorumOf(views).ok,
    nodes: views.map((v) => {
      const status = view.recorderNode(v.name)?.status;
      const heartbeat = leases.get(nodeLeaseName(v.name));
      const report = reportOf(heartbeat);
      return {
        node_name: v.name,
        online: v.online,
        member: v.member,
        last_heartbeat: v.lastHeartbeat ?? null,
        url: view.urlsOf(v.name, heartbeat).url ?? null,
        version: report.version ?? status?.version ?? null,
        cameras: report.cameras ?? status?.cameras ?? 0,
      };
    }),
  };
}
