// GET /api/health/live: the process answers HTTP; no credentials needed.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { formatIsoWithOffset } from '../../util/iso-time.js';

export interface HealthRouteOptions {
  version: string;
}

export const healthRoutes: FastifyPluginAsyncZod<HealthRouteOptions> = async (app, opts) => {
  app.get(
    '/api/health/live',
    {
      schema: {
        response: { 200: z.object({ status: z.literal('live'), version: z.string(), timestamp: z.string() }) },
      },
    },
    async () => ({ status: 'live' as const, version: opts.version, timestamp: formatIsoWithOffset(new Date()) }),
  );
};
