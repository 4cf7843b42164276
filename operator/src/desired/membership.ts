// A recorder's membership request (from its heartbeat Lease) + the RecorderNodes → what the operator writes: the
// spec.member / vigil.io/left changes, a learner to create, and the outcome reported back to the requesting node.
import {
  API_VERSION, LEFT_ANNOTATION, MembershipRefusal, NodeReportAnnotations, RECORDER_NODE_KIND, Labels,
  type MembershipOutcome, type MembershipRequest, type RecorderNode,
} from '@vigil/crds';
import { fromApiTime, toApiTime } from '@vigil/kube';
import { MANAGED_BY } from './names.js';

/** A request older than this is refused (its recorder gave up waiting long ago; acting now would surprise). */
export const MEMBERSHIP_REQUEST_MAX_AGE_MS = 60_000;

export interface RecorderNodePatch {
  node: string;
  patch: { metadata?: { annotations: Record<string, string | null> }; spec?: { member: boolean } };
}

export interface MembershipPlan {
  outcome: Omit<MembershipOutcome, 'time'>;
  /** Merge patches of RecorderNodes, only where something changes (carrying a request out twice changes nothing). */
  patches: RecorderNodePatch[];
  /** add-learner of a node without a RecorderNode. */
  create?: RecorderNode;
}

function refused(request: MembershipRequest, reason: string, message: string): MembershipPlan {
  return { outcome: { id: request.id, action: request.action, result: 'Refused', reason, message }, patches: [] };
}

function done(request: MembershipRequest, message: string, patches: RecorderNodePatch[], create?: RecorderNode): MembershipPlan {
  return { outcome: { id: request.id, action: request.action, result: 'Done', message }, patches, ...(create ? { create } : {}) };
}

const isMember = (rn: RecorderNode) => rn.spec.member !== false;
const hasLeft = (rn: RecorderNode) => rn.metadata.annotations?.[LEFT_ANNOTATION] !== undefined;

export function planMembershipRequest(requester: string, request: MembershipRequest, recorderNodes: RecorderNode[], now: number): MembershipPlan {
  const requestedAt = fromApiTime(request.requestedAt);
  if (requestedAt === undefined || now - requestedAt > MEMBERSHIP_REQUEST_MAX_AGE_MS) {
    return refused(request, MembershipRefusal.Expired, `the request of ${request.requestedAt} is more than ${MEMBERSHIP_REQUEST_MAX_AGE_MS / 1000} s old`);
  }
  const byName = new Map(recorderNodes.map((rn) => [rn.metadata.name ?? '', rn]));
  const nodes = request.nodes ?? [];
  const unknown = (names: string[]) => names.filter((n) => !byName.has(n));
  switch (request.action) {
    case 'leave': {
      const rn = byName.get(requester);
      if (!rn) return refused(request, MembershipRefusal.NodeNotFound, `no RecorderNode "${requester}"`);
      if (!isMember(rn) && hasLeft(rn)) return done(request, `${requester} had left already`, []);
      return done(request, `${requester} left: member false, ${LEFT_ANNOTATION} set`, [
        { node: requester, patch: { metadata: { annotations: { [LEFT_ANNOTATION]: rn.metadata.annotations?.[LEFT_ANNOTATION] ?? toApiTime(now) } }, spec: { member: false } } },
      ]);
    }
    case 'remove-node': {
      if (nodes.length !== 1) return refused(request, MembershipRefusal.InvalidMembership, 'remove-node names exactly one node');
      const name = nodes[0] as string;
      const rn = byName.get(name);
      if (!rn) return refused(request, MembershipRefusal.NodeNotFound, `no RecorderNode "${name}"`);
      return done(request, `${name} removed from membership (at the request of ${requester})`, isMember(rn) ? [{ node: name, patch: { spec: { member: false } } }] : []);
    }
    case 'add-learner': {
      if (nodes.length !== 1) return refused(request, MembershipRefusal.InvalidMembership, 'add-learner names exactly one node');
      const name = nodes[0] as string;
      const rn = byName.get(name);
      const annotations: Record<string, string | null> = {};
      if (request.url !== undefined && !rn?.status?.url) annotations[NodeReportAnnotations.url] = request.url;
      if (!rn) {
        const create: RecorderNode = {
          apiVersion: API_VERSION,
          kind: RECORDER_NODE_KIND,
          metadata: { name, labels: { [Labels.name]: 'vigil', [Labels.managedBy]: MANAGED_BY }, ...(Object.keys(annotations).length > 0 ? { annotations: annotations as Record<string, string> } : {}) },
          spec: { nodeName: name, member: false },
        };
        return done(request, `${name} added as a learner (at the request of ${requester})`, [], create);
      }
      if (hasLeft(rn)) annotations[LEFT_ANNOTATION] = null;
      const patch: RecorderNodePatch['patch'] = {};
      if (Object.keys(annotations).length > 0) patch.metadata = { annotations };
      if (isMember(rn)) patch.spec = { member: false };
      return done(request, `${name} is a learner (at the request of ${requester})`, Object.keys(patch).length > 0 ? [{ node: name, patch }] : []);
    }
    case 'change-membership': {
      if (nodes.length === 0) return refused(request, MembershipRefusal.InvalidMembership, 'members must name at least one node');
      const missing = unknown(nodes);
      if (missing.length > 0) return refused(request, MembershipRefusal.NodeNotFound, `no RecorderNode ${missing.map((m) => JSON.stringify(m)).join(', ')}`);
      const wanted = new Set(nodes);
      const patches: RecorderNodePatch[] = [];
      for (const [name, rn] of [...byName].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
        const member = wanted.has(name);
        const patch: RecorderNodePatch['patch'] = {};
        if (isMember(rn) !== member) patch.spec = { member };
        if (member && hasLeft(rn)) patch.metadata = { annotations: { [LEFT_ANNOTATION]: null } };
        if (Object.keys(patch).length > 0) patches.push({ node: name, patch });
      }
      return done(request, `members: ${[...wanted].sort().join(', ')} (at the request of ${requester})`, patches);
    }
    default:
      return refused(request, MembershipRefusal.InvalidMembership, `unknown action ${String((request as { action: unknown }).action)}`);
  }
}
