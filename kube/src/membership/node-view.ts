// The cluster's nodes as the operator and the recorders judge them (kubernetes.md §4): online from the heartbeat Lease,
// member from spec.member and the left annotation, settled since the Online condition's last transition.
import { LEFT_ANNOTATION, RecorderNodeCondition, nodeLeaseName, nodeNameOf, type RecorderNode } from '@vigil/crds';
import { fromApiTime } from '../api/clock.js';
import type { Lease, Node } from '../api/types.js';
import { reportOf } from './node-report.js';

export interface NodeView {
  name: string;
  /** spec.member and not annotated as left: votes and may take cameras. */
  member: boolean;
  left: boolean;
  online: boolean;
  /** The heartbeat Lease's renewTime in ms, when there is one. */
  lastHeartbeat?: number;
  /** While online: since when, as the RecorderNode's Online condition says (undefined until it says so). */
  onlineSince?: number;
  /** Labels of the Kubernetes Node (for Camera nodeSelector pins); {} when the Node is gone. */
  labels: Record<string, string>;
  /** The recorder's internal base URL: its latest report, else RecorderNode status.url, else the default. */
  url?: string;
  /** A selected Node whose RecorderNode does not exist yet: a member that counts, offline, towards quorum. */
  awaited?: boolean;
}

/** Online: the heartbeat Lease was renewed at most `silenceMs` ago. */
export function isOnline(lease: Lease | undefined, now: number, silenceMs: number): boolean {
  const renew = fromApiTime(lease?.spec?.renewTime ?? undefined);
  return renew !== undefined && now - renew <= silenceMs;
}

/** The silence rule published on the operator's Lease (seconds), else the default. */
export function silenceMsOf(published: string | undefined, defaultSeconds: number): number {
  const seconds = Number(published);
  return published !== undefined && Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : defaultSeconds * 1000;
}

/** When the RecorderNode's Online condition last turned True (undefined when it is not True). */
function onlineConditionSince(rn: RecorderNode): number | undefined {
  const online = rn.status?.conditions?.find((c) => c.type === RecorderNodeCondition.Online);
  return online?.status === 'True' ? fromApiTime(online.lastTransitionTime) : undefined;
}

export function nodeViews(
  recorderNodes: RecorderNode[],
  leaseOf: (name: string) => Lease | undefined,
  nodeOf: (name: string) => Node | undefined,
  now: number,
  silenceMs: number,
  /** The URL to use while the recorder has reported none yet (its per-node Service). */
  defaultUrl?: (name: string) => string,
): NodeView[] {
  return recorderNodes
    .filter((rn) => !rn.metadata.deletionTimestamp)
    .map((rn) => {
      const name = rn.metadata.name ?? '';
      const lease = leaseOf(nodeLeaseName(name));
      const left = rn.metadata.annotations?.[LEFT_ANNOTATION] !== undefined;
      const online = isOnline(lease, now, silenceMs);
      const view: NodeView = {
        name,
        member: rn.spec.member !== false && !left,
        left,
        online,
        labels: nodeOf(nodeNameOf(rn))?.metadata.labels ?? {},
      };
      const hb = fromApiTime(lease?.spec?.renewTime ?? undefined);
      if (hb !== undefined) view.lastHeartbeat = hb;
      const since = online ? onlineConditionSince(rn) : undefined;
      if (since !== undefined) view.onlineSince = since;
      const url = reportOf(lease).url || rn.status?.url || defaultUrl?.(name);
      if (url) view.url = url;
      return view;
    })
    .sort(byName);
}

/**
 * Selected Nodes (matching the operator's --node-selector) that have no RecorderNode yet: each will be a member, so
 * each counts towards quorum (offline) from the start — a first recorder up alone is never "1 of 1 members".
 */
export function awaitedMembers(nodes: Node[], selected: (labels: Record<string, string>) => boolean, recorderNodes: RecorderNode[]): NodeView[] {
  const represented = new Set(recorderNodes.flatMap((rn) => [rn.metadata.name ?? '', nodeNameOf(rn)]));
  return nodes
    .filter((n) => !n.metadata.deletionTimestamp && !represented.has(n.metadata.name ?? '') && selected(n.metadata.labels ?? {}))
    .map((n): NodeView => ({ name: n.metadata.name ?? '', member: true, left: false, online: false, labels: n.metadata.labels ?? {}, awaited: true }))
    .sort(byName);
}

function byName(a: NodeView, b: NodeView): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}
