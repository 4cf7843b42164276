// GET /api/cameras: the cameras this node knows, with state and, while streaming, codec and picture size.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { TokenAuthenticator } from '../auth.js';
import { errorResponse } from '../schemas.js';
import type { CameraControl } from '../services.js';

export interface CameraListRouteOptions {
  auth: TokenAuthenticator;
  cameras: CameraControl;
}

const cameraEntry = z.object({
  id: z.string(),
  state: z.enum(['recording', 'stalled', 'stopped']),
  /** The codecs parameter for MSE, e.g. 'avc1.42C01E' or 'avc1.4D401F,mp4a.40.2'; null until the camera streams. */
  codec: z.string().nullable(),
  width: z.number().int().nullable(),
  height: z.number().int().nullable(),
  ptz: z.boolean(),
});

export const cameraListRoutes: FastifyPluginAsyncZod<CameraListRouteOptions> = async (app, opts) => {
  app.get(
    '/api/cameras',
    {
      schema: { response: { 200: z.array(cameraEntry), 401: errorResponse, 403: errorResponse } },
      onRequest: async (req) => {
        opts.auth.require(req, 'viewer');
      },
    },
    async (_req, reply) => {
      void reply.header('Cache-Control', 'no-store');
      const entries: Array<z.infer<typeof cameraEntry>> = [];
      for (const cam of [...opts.cameras.list()].sort((a, b) => a.id.localeCompare(b.id))) {
        const state = opts.cameras.state(cam.id);
        if (state === undefined) continue; // removed between list() and now
        const init = opts.cameras.liveHub(cam.id)?.init;
        const codecs = init?.tracks.map((t) => t.codec).filter((c) => c !== '') ?? [];
        entries.push({
          id: cam.id,
          state,
          codec: codecs.length > 0 ? codecs.join(',') : null,
          width: init?.video?.width ?? null,
          height: init?.video?.height ?? null,
          ptz: cam.ptz,
        });
      }
      return entries;
    },
  );
};
