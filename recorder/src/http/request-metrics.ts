// Times every answered request and reports it by route pattern (never the raw URL, which may carry ids and tokens).
import type { FastifyInstance } from 'fastify';

export type RequestObserver = (method: string, route: string, status: number, seconds: number) => void;

export function installRequestMetrics(app: FastifyInstance, observe: RequestObserver): void {
  app.addHook('onResponse', async (req, reply) => {
    // Unmatched URLs share one label so random paths cannot grow the series without bound.
    const route = req.routeOptions.url ?? 'unmatched';
    observe(req.method, route, reply.statusCode, reply.elapsedTime / 1000);
  });
}
