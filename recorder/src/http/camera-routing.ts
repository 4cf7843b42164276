// Where a camera-scoped request is answered: here, by a 307 to the node that records the camera, or by a 404 for a camera no node knows.
import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { CameraNotFoundError } from '../cameras/camera-errors.js';
import type { CameraLocation, CameraLocator } from '../cameras/camera-locator.js';

/** How a route names its camera; routes without it are never redirected (export and time-lapse read local files). */
export interface CameraAddressing {
  /** Where the camera id is: a path parameter or a field of the JSON body. */
  from: 'params' | 'body';
  key: string;
  /** A camera no node knows: answered by the route itself (the listing's empty archive) or 404 here. */
  unknown: 'route' | 'not_found';
}

declare module 'fastify' {
  interface FastifyContextConfig {
    camera?: CameraAddressing;
  }
}

/**
 * Runs after authentication and validation (preHandler), so a caller without a valid token or with a bad body is
 * answered here and learns nothing about where cameras live. `*` (every camera, start/stop) is always local.
 */
export function installCameraRouting(app: FastifyInstance, locator: CameraLocator): void {
  app.addHook('preHandler', async (req, reply) => {
    const addressing = req.routeOptions.config.camera;
    // A route that attaches validation errors (PTZ) answers them itself, before any routing.
    if (addressing === undefined || req.validationError !== undefined) return;
    const id = cameraIdOf(req, addressing);
    if (id === undefined || id === '*') return;
    const where = await locator.locate(id);
    if (where.kind === 'remote') {
      return reply.code(307).header('Location', redirectLocation(where, req.headers, req.url)).header('Cache-Control', 'no-store').send();
    }
    if (where.kind === 'unknown' && addressing.unknown === 'not_found') throw new CameraNotFoundError(id);
    return;
  });
}

function cameraIdOf(req: FastifyRequest, addressing: CameraAddressing): string | undefined {
  const holder = (addressing.from === 'params' ? req.params : req.body) as Record<string, unknown> | undefined;
  const id = holder?.[addressing.key];
  return typeof id === 'string' ? id : undefined;
}

/**
 * The owner's base URL + the same path and query. A request that came through the Ingress (it carries
 * X-Forwarded-Host or Forwarded) is sent to the owner's public URL when it has one; anything else to the
 * internal one (the owner's Service), which callers inside the cluster can reach.
 */
export function redirectLocation(where: Extract<CameraLocation, { kind: 'remote' }>, headers: IncomingHttpHeaders, rawUrl: string): string {
  return `${ownerBaseUrl(where, headers)}${withoutLongLivedToken(rawUrl.startsWith('/') ? rawUrl : `/${rawUrl}`)}`;
}

/**
 * The path and query without `access_token`: a long-lived token must not travel on in a Location (it would land in
 * the next hop's access logs). Tokens are not taken from URLs anyway; an old client that still sends one is told to
 * send it as a header by the 401 it gets. A `ticket` (short-lived, one camera and purpose) passes on: the owner
 * accepts it, being signed with the key the nodes share.
 */
function withoutLongLivedToken(pathAndQuery: string): string {
  const at = pathAndQuery.indexOf('?');
  if (at === -1) return pathAndQuery;
  const params = new URLSearchParams(pathAndQuery.slice(at + 1));
  if (!params.has('access_token')) return pathAndQuery;
  params.delete('access_token');
  const query = params.toString();
  return `${pathAndQuery.slice(0, at)}${query === '' ? '' : `?${query}`}`;
}

/** The owner's base URL (no trailing slash) as this caller should reach it. */
export function ownerBaseUrl(where: Extract<CameraLocation, { kind: 'remote' }>, headers: IncomingHttpHeaders): string {
  const viaIngress = headers['x-forwarded-host'] !== undefined || headers['forwarded'] !== undefined;
  const base = viaIngress && where.publicUrl !== undefined ? where.publicUrl : where.url;
  return base.replace(/\/+$/, '');
}
