// Test support: a TCP server that accepts connections and never answers (a hung camera).
import { once } from 'node:events';
import { createServer, type Socket } from 'node:net';

export interface SilentServer {
  readonly port: number;
  /** Connections accepted so far. */
  readonly accepted: number;
  close(): Promise<void>;
}

export async function startSilentServer(): Promise<SilentServer> {
  const sockets = new Set<Socket>();
  let accepted = 0;
  const server = createServer((sock) => {
    accepted += 1;
    sockets.add(sock);
    sock.on('error', () => undefined);
    sock.on('close', () => sockets.delete(sock));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('silent server: no TCP address');
  return {
    port: address.port,
    get accepted() {
      return accepted;
    },
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
