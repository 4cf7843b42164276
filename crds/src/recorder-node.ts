// The RecorderNode resource (cluster-scoped, `rn`): one per Kubernetes Node that may record (kubernetes.md §1–2).
import { z } from 'zod';
import { conditionsSchema, timeSchema } from './condition.js';

export const recorderNodeSpecSchema = z
  .object({
    nodeName: z.string().min(1).max(253).describe('the Kubernetes Node (equal to metadata.name)'),
    member: z.boolean().default(true).describe('votes and takes cameras; false = learner or left'),
  })
  .strict();

export const recorderNodeStatusSchema = z
  .object({
    online: z.boolean().optional().describe('heartbeat Lease renewed within the last 15 s'),
    lastHeartbeat: timeSchema.optional().describe('the heartbeat Lease\'s renewTime'),
    url: z.string().optional().describe('the recorder\'s internal base URL (its per-node Service)'),
    publicUrl: z.string().optional().describe('the recorder\'s base URL through the Ingress'),
    version: z.string().optional().describe('the recorder\'s version'),
    cameras: z.number().int().min(0).optional().describe('cameras the recorder records now'),
    conditions: conditionsSchema.optional(),
    observedGeneration: z.number().int().min(0).optional(),
  })
  .strict();

export type RecorderNodeSpec = z.infer<typeof recorderNodeSpecSchema>;
export type RecorderNodeStatus = z.infer<typeof recorderNodeStatusSchema>;
