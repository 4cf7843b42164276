// A free TCP port on loopback, for the recorders and servers the benchmarks start.
import { once } from 'node:events';
import { createServer } from 'node:net';

export async function freePort() {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}
