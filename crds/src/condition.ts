// The condition shape both kinds use (Kubernetes API conventions: type, status, reason, message, lastTransitionTime, observedGeneration).
import { z } from 'zod';

/** RFC 3339 time as the API server writes it (`2025-01-02T03:04:05Z`, fraction allowed). */
export const timeSchema = z.iso.datetime({ offset: true });

export const conditionSchema = z
  .object({
    type: z.string().min(1).max(316),
    status: z.enum(['True', 'False', 'Unknown']),
    reason: z.string().max(1024).optional(),
    message: z.string().max(32768).optional(),
    lastTransitionTime: timeSchema.optional(),
    observedGeneration: z.number().int().min(0).optional(),
  })
  .strict();

export type Condition = z.infer<typeof conditionSchema>;

/** `status.conditions`: one entry per type (a list map keyed by `type`). */
export const conditionsSchema = z
  .array(conditionSchema)
  .meta({ 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['type'] });
