// POST /cameras/start and /cameras/stop: start or stop one camera or all of them (`*`).
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { CAMERA_ID_PATTERN } from '../../config/schema.js';
import type { TokenAuthenticator } from '../auth.js';
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

export const cameraControlRoutes: FastifyPluginAsyncZod<CameraControlRouteOptions> = async (app, opts) => {
  const operatorOnly = {
    onRequest: async (req: Parameters<TokenAuthenticator['require']>[0]) => void opts.auth.require(req, 'operator'),
    // One camera is started or stopped where it records; `*` means every camera of this node.
    config: { camera: { from: 'body', key: 'id', unknown: 'not_found' } as const },
  };
  app.post(
    '/cameras/start',
    { schema: { body, response: { 200: z.object({ status: z.literal('ok'), started: z.number().int() }), 404: errorResponse } }, ...operatorOnly },
    async (req) => ({ status: 'ok' as const, started: opts.cameras.startByRequest(req.body.id) }),
  );
  app.post(
    '/cameras/stop',
    { schema: { body, response: { 200: z.object({ status: z.literal('ok'), stopped: z.number().int() }), 404: errorResponse } }, ...operatorOnly },
    async (req) => ({ status: 'ok' as const, stopped: await opts.cameras.stopByRequest(req.body.id) }),
  );
};
