// Quorum (kubernetes.md §4): more than half of the voting members online; nothing is assigned or moved without it.
import type { NodeView } from './node-view.js';

export interface Quorum {
  voters: number;
  onlineVoters: number;
  /** More than half of the voters are online. */
  ok: boolean;
}

export function quorumOf(nodes: NodeView[]): Quorum {
  const voters = nodes.filter((n) => n.member);
  const onlineVoters = voters.filter((n) => n.online).length;
  return { voters: voters.length, onlineVoters, ok: voters.length > 0 && onlineVoters * 2 > voters.length };
}

