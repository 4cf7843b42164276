// The spec's cluster endpoints (admin): GET /cluster/metrics, POST /cluster/leave, remove-node, add-learner, change-membership.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ClusterRequestError } from '../../cluster/cluster-errors.js';
import { formatIsoWithOffset } from '../../util/iso-time.js';
import type { TokenAuthenticator } from '../auth.js';
import { ApiError } from '../error-catalogue.js';
import { errorResponse } from '../schemas.js';

/** What the routes need from cluster mode (modes/cluster-mode.ts implements it). */
export interface ClusterControl {
  metrics(): Promise<{ leader: string | null; quorum: boolean; nodes: Array<{ node_name: string; online: boolean; member: boolean; last_heartbeat: number | null; url: string | null; version: string | null; cameras: number }> }>;
  leave(force: boolean): Promise<{ node_name: string; handed_over: number; stopped_without_handover: number }>;
  removeNode(name: string): Promise<void>;
  addLearner(name: string, url: string | undefined): Promise<void>;
  changeMembership(members: readonly string[]): Promise<void>;
}

export interface ClusterRouteOptions {
  auth: TokenAuthenticator;
  /** undefined outside cluster mode: every endpoint answers 404 not_clustered. */
  cluster: ClusterControl | undefined;
}

/** Kubernetes Node names: DNS subdomains. */
const nodeName = z.string().regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/, { message: 'must be a Kubernetes node name' }).max(253);
const ok = z.object({ status: z.literal('ok') });
const errors = { 400: errorResponse, 401: errorResponse, 403: errorResponse, 404: errorResponse, 503: errorResponse };

export const clusterRoutes: FastifyPluginAsyncZod<ClusterRouteOptions> = async (app, opts) => {
  const adminOnly = { onRequest: async (req: Parameters<TokenAuthenticator['require']>[0]) => void opts.auth.require(req, 'admin') };
  const cluster = (): ClusterControl => {
    if (opts.cluster === undefined) throw new ApiError('not_clustered');
    return opts.cluster;
  };
  const run = async <T>(action: () => Promise<T>): Promise<T> => {
    try {
      return await action();
    } catch (err) {
      throw err instanceof ClusterRequestError ? new ApiError(err.kind, err.message) : err;
    }
  };

  app.get(
    '/cluster/metrics',
    {
      schema: {
        response: {
          200: z.object({
            leader: z.string().nullable(),
            quorum: z.boolean(),
            nodes: z.array(z.object({ node_name: z.string(), online: z.boolean(), member: z.boolean(), last_heartbeat: z.string().nullable(), url: z.string().nullable(), version: z.string().nullable(), cameras: z.number().int() })),
          }),
          ...errors,
        },
      },
      ...adminOnly,
    },
    async () => {
      const m = await cluster().metrics();
      return { ...m, nodes: m.nodes.map((n) => ({ ...n, last_heartbeat: n.last_heartbeat === null ? null : formatIsoWithOffset(new Date(n.last_heartbeat)) })) };
    },
  );
  app.post(
    '/cluster/leave',
    {
      schema: {
        body: z.object({ force: z.boolean().optional() }).strict().optional(),
        response: { 200: z.object({ status: z.literal('ok'), node_name: z.string(), handed_over: z.number().int(), stopped_without_handover: z.number().int() }), ...errors },
      },
      ...adminOnly,
    },
    async (req) => ({ status: 'ok' as const, ...(await run(() => cluster().leave(req.body?.force ?? false))) }),
  );
  app.post(
    '/cluster/remove-node',
    { schema: { body: z.object({ node_name: nodeName }).strict(), response: { 200: ok, ...errors } }, ...adminOnly },
    async (req) => {
      await run(() => cluster().removeNode(req.body.node_name));
      return { status: 'ok' as const };
    },
  );
  app.post(
    '/cluster/add-learner',
    {
      schema: {
        body: z.object({ node_name: nodeName, url: z.string().url().refine((u) => /^https?:\/\//.test(u), { message: 'must be an http(s) URL' }).optional() }).strict(),
        response: { 200: ok, ...errors },
      },
      ...adminOnly,
    },
    async (req) => {
      await run(() => cluster().addLearner(req.body.node_name, req.body.url));
      return { status: 'ok' as const };
    },
  );
  app.post(
    '/cluster/change-membership',
    { schema: { body: z.object({ members: z.array(nodeName).max(1000) }).strict(), response: { 200: ok, ...errors } }, ...adminOnly },
    async (req) => {
      await run(() => cluster().changeMembership(req.body.members));
      return { status: 'ok' as const };
    },
  );
};
