// GET /api/archive/{camera_id}/current: the segment file being written right now.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { formatIsoWithOffset } from '../../util/iso-time.js';
import type { TokenAuthenticator } from '../auth.js';
import { ApiError } from '../error-catalogue.js';
import { cameraIdParam, errorResponse } from '../schemas.js';
import type { CameraControl } from '../services.js';

export interface CurrentRouteOptions {
  auth: TokenAuthenticator;
  cameras: CameraControl;
}

export const archiveCurrentRoutes: FastifyPluginAsyncZod<CurrentRouteOptions> = async (app, opts) => {
  app.get(
    '/api/archive/:camera_id/current',
    {
      schema: {
        params: cameraIdParam,
        response: {
          200: z.object({ camera_id: z.string(), filename: z.string(), start: z.string(), size: z.number().int() }),
          404: errorResponse,
        },
      },
      config: { camera: { from: 'params', key: 'camera_id', unknown: 'not_found' }, crossOrigin: true },
      onRequest: async (req) => {
        opts.auth.require(req, 'viewer');
      },
    },
    async (req) => {
      const { camera_id } = req.params;
      const current = opts.cameras.currentSegment(camera_id);
      if (current === undefined) {
        const why = opts.cameras.state(camera_id) === 'stopped' ? 'the camera is stopped' : 'no file is being written (stream silent, or record.format is mp4)';
        throw new ApiError('not_recording', `camera ${camera_id}: ${why}`);
      }
      return { camera_id, filename: current.filename, start: formatIsoWithOffset(current.start), size: current.size };
    },
  );
};
