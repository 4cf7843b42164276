// POST /api/tickets: a short-lived ticket for one URL a browser cannot add a header to (live socket, media, a download).
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { CAMERA_ID_PATTERN } from '../../config/schema.js';
import type { TicketScope } from '../access-tickets.js';
import type { TokenAuthenticator } from '../auth.js';
import { errorResponse } from '../schemas.js';

export interface TicketRouteOptions {
  auth: TokenAuthenticator;
}

const cameraId = z.string().regex(CAMERA_ID_PATTERN, { message: `must match ${CAMERA_ID_PATTERN.source}` });
const ticketRequest = z.discriminatedUnion('purpose', [
  z.object({ purpose: z.literal('live'), camera_id: cameraId }).strict(),
  z.object({ purpose: z.literal('media'), camera_id: cameraId }).strict(),
  z.object({ purpose: z.literal('download'), job_id: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, { message: 'is not a job id' }) }).strict(),
]);

export const ticketRoutes: FastifyPluginAsyncZod<TicketRouteOptions> = async (app, opts) => {
  app.post(
    '/api/tickets',
    {
      schema: {
        body: ticketRequest,
        response: { 200: z.object({ ticket: z.string(), expires_at: z.number().int() }), 400: errorResponse, 401: errorResponse, 403: errorResponse },
      },
      // Minted on the node that will answer (the page asks the camera's own node): readable from another origin.
      config: { crossOrigin: true },
      // The long-lived token in the Authorization header, never a ticket: a ticket cannot be turned into another.
      onRequest: async (req) => {
        opts.auth.require(req, 'viewer');
      },
    },
    async (req) => {
      const caller = opts.auth.require(req, 'viewer');
      const body = req.body;
      const scope: TicketScope = body.purpose === 'download' ? { purpose: 'download', job: body.job_id } : { purpose: body.purpose, camera: body.camera_id };
      const minted = opts.auth.tickets.mint(scope, caller);
      return { ticket: minted.ticket, expires_at: Math.floor(minted.expiresAtMs / 1000) };
    },
  );
};
