// A kept-alive connection that the server closed as the next request went out on it (what a server's idle timeout
// does to a client that reuses the connection at that moment): the request is sent once more on a new connection.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { test } from 'node:test';
import { KubeConfig } from '@vigil/testing/kube/client-node';
import { KubeClient, Resources, type ConfigMap } from '../src/index.js';

/** Answers the first request of each connection; a second request on the same connection finds it reset. */
async function serverThatDropsReusedConnections(): Promise<{ server: Server; port: number; arrivals: () => number; connections: () => number }> {
  const served = new WeakSet<Socket>();
  let arrivals = 0;
  let connections = 0;
  const server = createServer((req, res) => {
    arrivals++;
    if (served.has(req.socket)) {
      req.socket.destroy();
      return;
    }
    served.add(req.socket);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'default' }, data: { n: String(arrivals) } }));
  });
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return { server, port: address.port, arrivals: () => arrivals, connections: () => connections };
}

test('a request on a kept-alive connection the server had closed is sent again on a new one', async (t) => {
  const { server, port, arrivals, connections } = await serverThatDropsReusedConnections();
  t.after(() => server.close());
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server: `http://127.0.0.1:${port}`, skipTLSVerify: true }],
    users: [{ name: 'u', token: 'x' }],
    contexts: [{ name: 'ctx', cluster: 'c', user: 'u' }],
    currentContext: 'ctx',
  });
  const client = new KubeClient(kc);
  t.after(() => client.close());
  assert.equal((await client.get<ConfigMap>(Resources.configMaps, 'default', 'c'))?.data?.n, '1');
  // The connection is reused and reset by the server: the client sends it again on a second connection.
  assert.equal((await client.get<ConfigMap>(Resources.configMaps, 'default', 'c'))?.data?.n, '3');
  assert.equal(arrivals(), 3);
  assert.equal(connections(), 2);
});
