// GET /api/cameras/{id}/snapshot: the camera's own still, shared by every request for 15 s.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { CAMERA_ID_PATTERN } from '../../config/schema.js';
import { CameraAnswerError, CameraTimeoutError, NoSnapshotUriError } from '../../snapshot/snapshot-errors.js';
import type { TokenAuthenticator } from '../auth.js';
import { ApiError } from '../error-catalogue.js';

/** What the route needs from the snapshot service. */
export interface SnapshotSource {
  snapshot(cameraId: string): Promise<{ value: { bytes: Buffer; contentType: string }; maxAgeSeconds: number }>;
}

export interface SnapshotRouteOptions {
  auth: TokenAuthenticator;
  snapshots: SnapshotSource;
}

const params = z.object({
  id: z.string().regex(CAMERA_ID_PATTERN, { message: `must match ${CAMERA_ID_PATTERN.source}` }),
});

export const snapshotRoutes: FastifyPluginAsyncZod<SnapshotRouteOptions> = async (app, opts) => {
  app.get(
    '/api/cameras/:id/snapshot',
    {
      // No response schema: the 200 body is the camera's bytes (fastify sends a Buffer as is); errors go through the error handler.
      schema: { params },
      config: { camera: { from: 'params', key: 'id', unknown: 'not_found' } },
      onRequest: async (req) => {
        opts.auth.require(req, 'viewer');
      },
    },
    async (req, reply) => {
      const { id } = req.params;
      try {
        const { value, maxAgeSeconds } = await opts.snapshots.snapshot(id);
        return reply.header('Content-Type', value.contentType).header('Cache-Control', `private, max-age=${maxAgeSeconds}`).send(value.bytes);
      } catch (err) {
        throw toApiError(id, err);
      }
    },
  );
};

function toApiError(id: string, err: unknown): unknown {
  if (err instanceof NoSnapshotUriError) return new ApiError('no_snapshot_uri', err.message);
  if (err instanceof CameraTimeoutError) return new ApiError('camera_timeout', `camera ${id}: ${err.message}`);
  if (err instanceof CameraAnswerError) return new ApiError('camera_error', `camera ${id}: ${err.message}`);
  return err;
}
