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

/**
 * The archive page plays a camera of another node through the 307 to that node, a different origin. Tokens are
 * never ambient (no cookies: a bearer header or `?access_token=` the caller adds itself), so letting any origin read
 * an answer gives a page nothing it could not fetch with the same token anyway. Requests a browser sends without a
 * preflight (GET, POST without a body, the token in the query) are all the page needs; no OPTIONS route exists.
 */
export function installCrossOrigin(app: FastifyInstance): void {
  app.addHook('onSend', async (req, reply, payload) => {
    if (req.routeOptions.config.crossOrigin === true) {
      void reply.header('Access-Control-Allow-Origin', '*').header('Access-Control-Expose-Headers', EXPOSED);
    }
    return payload;
  });
}
