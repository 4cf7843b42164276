// GET /api/metrics: the node metrics record (load, memory, record_path storage) for a viewer.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { NodeMetricsRecord } from '../../metrics/node-metrics.js';
import type { TokenAuthenticator } from '../auth.js';
import { errorResponse } from '../schemas.js';

export interface NodeMetricsRouteOptions {
  auth: TokenAuthenticator;
  read(): Promise<NodeMetricsRecord>;
}

const nodeMetrics = z.object({
  online: z.boolean(),
  node_name: z.string(),
  cpu_load: z.number().int(),
  mem_used_gb: z.number().int(),
  mem_total_gb: z.number().int(),
  storage_free_gb: z.number().int(),
  storage_used_gb: z.number().int(),
  timestamp: z.string(),
});

export const nodeMetricsRoutes: FastifyPluginAsyncZod<NodeMetricsRouteOptions> = async (app, opts) => {
  app.get(
    '/api/metrics',
    {
      schema: { response: { 200: nodeMetrics, 401: errorResponse, 403: errorResponse } },
      onRequest: async (req) => {
        opts.auth.require(req, 'viewer');
      },
    },
    async (_req, reply) => {
      void reply.header('Cache-Control', 'no-store');
      return opts.read();
    },
  );
};
