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
