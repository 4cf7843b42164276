// Listens with the fastify app and closes it with a grace period.
import type { FastifyInstance } from 'fastify';
import type { ListenAddress } from '../config/listen.js';

export interface RunningServer {
  /** The address actually bound (port 0 resolves to a real port). */
  url: string;
  close(): Promise<void>;
}

export async function listen(app: FastifyInstance, addr: ListenAddress): Promise<RunningServer> {
  await app.listen({ host: addr.host, port: addr.port });
  const bound = app.server.address();
  const port = typeof bound === 'object' && bound !== null ? bound.port : addr.port;
  const host = addr.host.includes(':') ? `[${addr.host}]` : addr.host;
  return {
    url: `http://${host}:${port}`,
    close: () => app.close(),
  };
}
