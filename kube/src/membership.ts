// The cluster's membership as the operator and the recorders see it: which RecorderNodes are online members, and quorum (kubernetes.md §4).
import { LEFT_ANNOTATION, nodeLeaseName, type RecorderNode } from '@vigil/crds';
import { fromApiTime } from './clock.js';
import type { Lease, Node } from './types.js';

export interface NodeView {
  name: string;
  /** spec.member and not annotated as left: votes and may take cameras. */
  member: boolean;
  left: boolean;
  online: boolean;
  /** The heartbeat Lease's renewTime in ms, when there is one. */
  lastHeartbeat?: number;
  /** Labels of the Kubernetes Node (for Camera nodeSelector pins); {} when the Node is gone. */
  labels: Record<string, string>;
  /** The recorder's internal base URL (RecorderNode status.url). */
  url?: string;
}

export interface Quorum {
  voters: number;
  onlineVoters: number;
  /** More than half of the voters are online. */
  ok: boolean;
}

/** Online: the heartbeat Lease was renewed at most `silenceMs` ago. */
export function isOnline(lease: Lease | undefined, now: number, silenceMs: number): boolean {
  const renew = fromApiTime(lease?.spec?.renewTime ?? undefined);
  return renew !== undefined && now - renew <= silenceMs;
}

export function nodeViews(
  recorderNodes: RecorderNode[],
  leaseOf: (name: string) => Lease | undefined,
  nodeOf: (name: string) => Node | undefined,
  now: number,
  silenceMs: number,
  /** The URL to use while the recorder has not written its own status.url yet (its per-node Service). */
  defaultUrl?: (name: string) => string,
): NodeView[] {
  return recorderNodes
    .filter((rn) => !rn.metadata.deletionTimestamp)
    .map((rn) => {
      const name = rn.metadata.name ?? '';
      const lease = leaseOf(nodeLeaseName(name));
      const left = rn.metadata.annotations?.[LEFT_ANNOTATION] !== undefined;
      const view: NodeView = {
        name,
        member: rn.spec.member !== false && !left,
        left,
        online: isOnline(lease, now, silenceMs),
        labels: nodeOf(rn.spec.nodeName || name)?.metadata.labels ?? {},
      };
      const hb = fromApiTime(lease?.spec?.renewTime ?? undefined);
      if (hb !== undefined) view.lastHeartbeat = hb;
      const url = rn.status?.url || defaultUrl?.(name);
      if (url) view.url = url;
      return view;
    })
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

export function quorumOf(nodes: NodeView[]): Quorum {
  const voters = nodes.filter((n) => n.member);
  const onlineVoters = voters.filter((n) => n.online).length;
  return { voters: voters.length, onlineVoters, ok: voters.length > 0 && onlineVoters * 2 > voters.length };
}
