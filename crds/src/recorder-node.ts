// The RecorderNode resource (cluster-scoped, `rn`): one per Kubernetes Node that may record (kubernetes.md §1–2).
import { z } from 'zod';
import { conditionsSchema, timeSchema } from './condition.js';
import { membershipOutcomeSchema } from './membership-request.js';

export const recorderNodeSpecSchema = z
  .object({
    nodeName: z.string().min(1).max(253).describe('the Kubernetes Node (equal to metadata.name)'),
    member: z.boolean().default(true).describe('votes and takes cameras; false = learner or left'),
  })
  .strict();

export const recorderNodeStatusSchema = z
  .object({
    online: z.boolean().optional().describe('heartbeat Lease renewed within the node-silence limit (15 s by default); changes only on transitions'),
    lastHeartbeat: timeSchema.optional().describe('the heartbeat Lease\'s renewTime when online last changed (for an offline node: its last heartbeat); the Lease itself has the current one'),
    url: z.string().optional().describe('the recorder\'s internal base URL (its per-node Service), as its heartbeat Lease reports it'),
    publicUrl: z.string().optional().describe('the recorder\'s base URL through the Ingress, as its heartbeat Lease reports it'),
    version: z.string().optional().describe('the recorder\'s version, as its heartbeat Lease reports it'),
    cameras: z.number().int().min(0).optional().describe('cameras the recorder records now, as its heartbeat Lease reports it'),
    conditions: conditionsSchema.optional(),
    observedGeneration: z.number().int().min(0).optional(),
    membershipRequest: membershipOutcomeSchema.optional().describe('the outcome of the last membership change this node\'s recorder asked for'),
  })
  .strict();

export type RecorderNodeSpec = z.infer<typeof recorderNodeSpecSchema>;
export type RecorderNodeStatus = z.infer<typeof recorderNodeStatusSchema>;
