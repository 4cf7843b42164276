// POST /cameras/start and /cameras/stop: start or stop one camera or all of them (`*`).
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { CAMERA_ID_PATTERN } from '../../config/schema.js';
import type { TokenAuthenticator } from '../auth.js';
import { ApiError } from '../error-catalogue.js';
import { errorResponse } from '../schemas.js';
import type { CameraControl } from '../services.js';

export interface CameraControlRouteOptions {
  auth: TokenAuthenticator;
  cameras: CameraControl;
}

const body = z
  .object({
    id: z.string().refine((s) => s === '*' || CAMERA_ID_PATTERN.test(s), { message: `must be "*" or match ${CAMERA_ID_PATTERN.source}` }),
  })
  .strict();

function isNotFound(err: unknown): err is Error & { cameraId: string } {
  return err instanceof Error && typeof (err as { cameraId?: unknown }).cameraId === 'string';
}

export const cameraControlRoutes: FastifyPluginAsyncZod<CameraControlRouteOptions> = async (app, opts) => {
  const operatorOnly = { onRequest: async (req: Parameters<TokenAuthenticator['require']>[0]) => void opts.auth.require(req, 'operator') };
  app.post(
    '/cameras/start',
    { schema: { body, response: { 200: z.object({ status: z.literal('ok'), started: z.number().int() }), 404: errorResponse } }, ...operatorOnly },
    async (req) => {
      try {
        return { status: 'ok' as const, started: opts.cameras.startByRequest(req.body.id) };
      } catch (err) {
        if (isNotFound(err)) throw new ApiError('camera_not_found', `camera ${err.cameraId} is not known on this node`);
        throw err;
      }
    },
  );
  app.post(
    '/cameras/stop',
    { schema: { body, response: { 200: z.object({ status: z.literal('ok'), stopped: z.number().int() }), 404: errorResponse } }, ...operatorOnly },
    async (req) => {
      try {
        return { status: 'ok' as const, stopped: await opts.cameras.stopByRequest(req.body.id) };
      } catch (err) {
        if (isNotFound(err)) throw new ApiError('camera_not_found', `camera ${err.cameraId} is not known on this node`);
        throw err;
      }
    },
  );
};
