// GET /api/health/ready: the load-balancer probe; per-check details only for a caller with a token of any role.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { ReadinessReport } from '../../health/readiness.js';
import { formatIsoWithOffset } from '../../util/iso-time.js';
import type { TokenAuthenticator } from '../auth.js';

export interface ReadinessSource {
  /** Answers within its deadline even when a check hangs. */
  evaluate(): Promise<ReadinessReport>;
}

export interface ReadyRouteOptions {
  version: string;
  auth: TokenAuthenticator;
  readiness: ReadinessSource;
}

const checks = z.object({
  storage: z.object({ configured: z.boolean(), reachable: z.boolean() }),
  cluster_store: z.object({ configured: z.boolean() }),
  recordings_dir: z.object({ path: z.string(), writable: z.boolean() }),
  license: z.object({ valid: z.boolean() }),
  /**
   * The served certificate's end; `expiring` from 7 days before it (reported, the check still passes), `expired` past
   * it (the check fails); `waiting` while a node serves a provisional certificate (the check fails).
   */
  tls: z.object({ configured: z.boolean(), not_after: z.string().optional(), expiring: z.boolean().optional(), expired: z.boolean().optional(), waiting: z.string().optional() }).optional(),
});

const readyBody = z.object({
  status: z.enum(['ready', 'not_ready']),
  version: z.string(),
  timestamp: z.string(),
  /** Only for an identified caller. */
  checks: checks.optional(),
  /** Names of the failed checks; only for an identified caller. */
  failed: z.array(z.string()).optional(),
});

export const readyRoutes: FastifyPluginAsyncZod<ReadyRouteOptions> = async (app, opts) => {
  app.get(
    '/api/health/ready',
    { schema: { response: { 200: readyBody, 503: readyBody } } },
    async (req, reply) => {
      const report = await opts.readiness.evaluate();
      const body: z.infer<typeof readyBody> = { status: report.ready ? 'ready' : 'not_ready', version: opts.version, timestamp: formatIsoWithOffset(new Date()) };
      // A missing or wrong token is no error here: the probe answers everyone, only the details need a caller.
      if (opts.auth.identify(req) !== undefined) {
        body.checks = checks.parse(report.checks);
        body.failed = report.failed;
      }
      void reply.header('Cache-Control', 'no-store');
      return reply.status(report.ready ? 200 : 503).send(body);
    },
  );
};
