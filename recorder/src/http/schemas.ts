// zod schemas shared by several routes.
import { z } from 'zod';
import { CAMERA_ID_PATTERN } from '../config/schema.js';

export const cameraIdParam = z.object({
  camera_id: z.string().regex(CAMERA_ID_PATTERN, { message: `must match ${CAMERA_ID_PATTERN.source}` }),
});

export const errorResponse = z.object({
  error: z.object({ code: z.string(), message: z.string(), details: z.record(z.string(), z.unknown()).optional() }),
});
