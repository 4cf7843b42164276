// GET /cluster/metrics: the operator holding the leader Lease, quorum, and every RecorderNode as this node sees them.
import { nodeLeaseName, OPERATOR_LEASE_NAME } from '@vigil/crds';
import { fromApiTime, nodeViews, quorumOf, reportOf } from '@vigil/kube';
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

export function clusterMetrics(view: ClusterView, nowMs: number): ClusterMetrics {
  const lease = view.lease(OPERATOR_LEASE_NAME);
  const holder = lease?.spec?.holderIdentity ?? '';
  const renewed = fromApiTime(lease?.spec?.renewTime ?? undefined);
  const durationMs = (lease?.spec?.leaseDurationSeconds ?? 0) * 1000;
  const leader = holder !== '' && renewed !== undefined && nowMs - renewed <= durationMs ? holder : null;
  // The operator's own silence rule (published on its Lease), so both judge a node online alike.
  const views = nodeViews(view.recorderNodes.list(), (name) => view.lease(name), () => undefined, nowMs, view.nodeSilenceMs());
  return {
    leader,
    quorum: quorumOf(views).ok,
    nodes: views.map((v) => {
      const status = view.recorderNode(v.name)?.status;
      const report = reportOf(view.lease(nodeLeaseName(v.name)));
      return {
        node_name: v.name,
        online: v.online,
        member: v.member,
        last_heartbeat: v.lastHeartbeat ?? null,
        url: view.urlsOf(v.name).url ?? null,
        version: report.version ?? status?.version ?? null,
        cameras: report.cameras ?? status?.cameras ?? 0,
      };
    }),
  };
}
