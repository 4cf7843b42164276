// Listens with the fastify app (over TLS when a certificate is given) and closes it with a grace period.
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { ListenAddress } from '../config/listen.js';
import type { ServingCertificate } from '../tls/serving-certificate.js';
import { serveTls } from './tls-listener.js';

export interface RunningServer {
  /** The address actually bound (port 0 resolves to a real port); https:// with a certificate. */
  url: string;
  close(): Promise<void>;
}

export interface ListenOptions {
  /** HTTPS only on the port: plain HTTP is answered 400 https_required. */
  certificate?: ServingCertificate | undefined;
  log?: Logger;
}

/** Connections still open this long after the close began (a TLS handshake in progress, say) are cut. */
const CLOSE_DEADLINE_MS = 5_000;

export async function listen(app: FastifyInstance, addr: ListenAddress, opts: ListenOptions = {}): Promise<RunningServer> {
  const tls = opts.certificate === undefined ? undefined : serveTls(app.server, opts.certificate, (opts.log ?? app.log) as Logger);
  await app.listen({ host: addr.host, port: addr.port });
  const bound = app.server.address();
  const port = typeof bound === 'object' && bound !== null ? bound.port : addr.port;
  const host = addr.host.includes(':') ? `[${addr.host}]` : addr.host;
  return {
    url: `${tls === undefined ? 'http' : 'https'}://${host}:${port}`,
    close: async () => {
      if (tls === undefined) return app.close();
      // Live viewers get their close frame and requests end (the app's own close); connections that carry no TLS go now.
      const closing = app.close();
      tls.dropUnserved();
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([closing, new Promise<void>((resolve) => (timer = setTimeout(resolve, CLOSE_DEADLINE_MS)))]);
      clearTimeout(timer);
      tls.destroyAll();
      await closing;
    },
  };
}
