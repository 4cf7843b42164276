// GET /cluster/metrics: the operator holding the leader Lease, quorum, and every RecorderNode as this node sees them.
import { OPERATOR_LEASE_NAME } from '@vigil/crds';
import { fromApiTime, nodeViews, quorumOf } from '@vigil/kube';
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

/** A node is online while its heartbeat is at most this old (the operator uses the same rule). */
export const NODE_SILENCE_MS = 15_000;

export function clusterMetrics(view: ClusterView, nowMs: number): ClusterMetrics {
  const lease = view.lease(OPERATOR_LEASE_NAME);
  const holder = lease?.spec?.holderIdentity ?? '';
  const renewed = fromApiTime(lease?.spec?.renewTime ?? undefined);
  const durationMs = (lease?.spec?.leaseDurationSeconds ?? 0) * 1000;
  const leader = holder !== '' && renewed !== undefined && nowMs - renewed <= durationMs ? holder : null;
  const views = nodeViews(view.recorderNodes.list(), (name) => view.lease(name), () => undefined, nowMs, NODE_SILENCE_MS);
  return {
    leader,
    quorum: quorumOf(views).ok,
    nodes: views.map((v) => {
      const status = view.recorderNode(v.name)?.status;
      return {
        node_name: v.name,
        online: v.online,
        member: v.member,
        last_heartbeat: v.lastHeartbeat ?? null,
        url: status?.url ?? null,
        version: status?.version ?? null,
        cameras: status?.cameras ?? 0,
      };
    }),
  };
}
