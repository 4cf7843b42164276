// A membership change a recorder was asked for through the cluster endpoints, and its outcome (kubernetes.md §14):
// the request rides on the recorder's heartbeat Lease, the operator carries it out and reports on the RecorderNode.
import { z } from 'zod';
import { timeSchema } from './condition.js';

export const MEMBERSHIP_ACTIONS = ['leave', 'remove-node', 'add-learner', 'change-membership'] as const;
export type MembershipAction = (typeof MEMBERSHIP_ACTIONS)[number];

const nodeNameSchema = z.string().min(1).max(253);

export const membershipRequestSchema = z
  .object({
    /** Unique per request: the outcome names it. */
    id: z.string().min(1).max(64),
    action: z.enum(MEMBERSHIP_ACTIONS),
    /** remove-node and add-learner: one node; change-membership: the members; leave: none (the requesting node). */
    nodes: z.array(nodeNameSchema).max(1000).optional(),
    /** add-learner: the learner's internal URL until its recorder reports one. */
    url: z.string().max(2048).optional(),
    requestedAt: timeSchema,
  })
  .strict();

export type MembershipRequest = z.infer<typeof membershipRequestSchema>;

/** Why the operator refused a request (the recorder maps them to HTTP statuses). */
export const MembershipRefusal = {
  NodeNotFound: 'NodeNotFound',
  InvalidMembership: 'InvalidMembership',
  Expired: 'Expired',
  Unreadable: 'Unreadable',
} as const;

export const membershipOutcomeSchema = z
  .object({
    id: z.string().max(64),
    action: z.string().max(64).optional(),
    result: z.enum(['Done', 'Refused']),
    reason: z.string().max(1024).optional(),
    message: z.string().max(32768).optional(),
    time: timeSchema.optional(),
  })
  .strict();

export type MembershipOutcome = z.infer<typeof membershipOutcomeSchema>;

/** The request a Lease annotation holds: `request` when it is one, `error` when the text is not a valid request. */
export function parseMembershipRequest(text: string | undefined): { request?: MembershipRequest; error?: string } {
  if (text === undefined || text === '') return {};
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { error: 'not JSON' };
  }
  const parsed = membershipRequestSchema.safeParse(raw);
  if (!parsed.success) return { error: parsed.error.issues.map((i) => `${i.path.join('.') || '(request)'}: ${i.message}`).join('; ') };
  return { request: parsed.data };
}
