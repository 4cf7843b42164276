// Answers of the archive endpoints a page on another node reads (a cluster's per-node hosts): readable from any origin.
import type { FastifyInstance } from 'fastify';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Answers carry Access-Control-Allow-Origin: * (with the headers a player reads exposed). */
    crossOrigin?: boolean;
  }
}

/** Response headers a script may read besides the CORS-safelisted ones. */
const EXPOSED = ['Vigil-Start', 'Content-Range', 'Content-Length', 'Accept-Ranges', 'ETag', 'Location', 'Retry-After'].join(', ');

/** How long a browser may reuse a preflight's answer. */
const PREFLIGHT_MAX_AGE_SECONDS = 600;

/**
 * The archive and live pages call the node that records a camera, in a cluster another host: a different origin.
 * Tokens are never ambient (no cookies: the caller adds the Authorization header itself), so letting any origin read
 * an answer gives a page nothing it could not fetch with the same token anyway. A request with an Authorization
 * header (or a JSON body) from another origin is preceded by a preflight; OPTIONS answers it for every path, allowing
 * exactly those headers, so the page never needs to put a token in a URL.
 */
export function installCrossOrigin(app: FastifyInstance): void {
  app.addHook('onSend', async (req, reply, payload) => {
    if (req.routeOptions.config.crossOrigin === true) {
      void reply.header('Access-Control-Allow-Origin', '*').header('Access-Control-Expose-Headers', EXPOSED);
    }
    return payload;
  });
  app.options('/*', async (_req, reply) =>
    reply
      .code(204)
      .header('Access-Control-Allow-Origin', '*')
      .header('Access-Control-Allow-Methods', 'GET, POST')
      .header('Access-Control-Allow-Headers', 'Authorization, Content-Type, Range, If-None-Match, If-Range')
      .header('Access-Control-Max-Age', String(PREFLIGHT_MAX_AGE_SECONDS))
      .send(),
  );
}
