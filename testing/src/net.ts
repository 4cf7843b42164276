// Test support: loopback ports for servers a test starts.
import { once } from 'node:events';
import { createServer } from 'node:net';

/** Binds 127.0.0.1:0, reads the port the kernel picked, closes. */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.unref();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('freePort: no TCP address');
  return address.port;
}

/**
 * Starts a server on a port picked with freePort(), and on another one when `portTaken(err)` says someone took the
 * port between the pick and the bind (an outgoing connection's ephemeral port can). For servers whose address must
 * be known before they start; a server that can bind port 0 itself and say where it listens needs none of this.
 */
export async function startOnFreshPort<T>(start: (port: number) => Promise<T>, portTaken: (err: unknown) => boolean, attempts: number): Promise<T> {
  let lastError: unknown;
  for (let attempt = 0; attempt < attempts; attempt++) {
    try {
      return await start(await freePort());
    } catch (err) {
      lastError = err;
      if (!portTaken(err)) throw err;
    }
  }
  throw lastError;
}
