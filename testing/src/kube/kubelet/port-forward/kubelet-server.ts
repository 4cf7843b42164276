// The kubelet's HTTPS endpoint that kube-apiserver reaches for `kubectl port-forward` (the Node's address and
// daemonEndpoints.kubeletEndpoint port): /portForward/{namespace}/{pod}[/{uid}] upgraded to SPDY/3.1 with the
// portforward.k8s.io protocol, each forwarded connection a pair of streams (error, data) joined by their requestID, the
// data stream connected to the loopback port that stands for the Pod's containerPort (pkg/kubelet/cri/streaming/portforward).
import { createServer, type Server } from 'node:https';
import { connect } from 'node:net';
import type { Duplex } from 'node:stream';
import type { IncomingMessage } from 'node:http';
import { SpdySession, type SpdyStream } from './spdy-session.js';

const PROTOCOL = 'portforward.k8s.io';

export interface KubeletServerOptions {
  cert: string;
  key: string;
  /** containerPort → loopback port of the Pod the kubelet runs; undefined when it runs no such Pod. */
  podPorts(namespace: string, name: string): ReadonlyMap<number, number> | undefined;
}

export interface KubeletServer {
  readonly port: number;
  close(): Promise<void>;
}

interface StreamPair {
  data?: SpdyStream;
  error?: SpdyStream;
}

function forward(pair: Required<StreamPair>, target: number | undefined, what: string): void {
  const fail = (message: string): void => {
    if (!pair.error.destroyed) pair.error.end(message);
    pair.data.reset();
  };
  if (target === undefined) {
    fail(`error forwarding port ${pair.data.headers['port']} to pod ${what}: the pod does not listen on it here`);
    return;
  }
  const socket = connect(target, '127.0.0.1');
  let connected = false;
  socket.once('connect', () => {
    connected = true;
    socket.pipe(pair.data);
    pair.data.pipe(socket);
  });
  socket.on('error', (err) => {
    if (!connected) fail(`error forwarding port ${pair.data.headers['port']} to pod ${what}: ${err.message}`);
    else pair.data.reset();
  });
  // The pair is done once the Pod's side closed: the error stream ends empty (no error), as the kubelet's does.
  socket.once('close', () => {
    if (!pair.error.destroyed) pair.error.end();
  });
  pair.data.on('error', () => socket.destroy());
  pair.data.on('close', () => socket.destroy());
}

function portForward(req: IncomingMessage, socket: Duplex, head: Buffer, o: KubeletServerOptions): void {
  const match = /^\/portForward\/([^/]+)\/([^/?]+)(?:\/[^/?]+)?(?:\?.*)?$/.exec(req.url ?? '');
  const protocols = (req.headers['x-stream-protocol-version'] ?? '').toString().split(',').map((p) => p.trim());
  if (match === null || !/spdy\/3\.1/i.test(String(req.headers.upgrade ?? '')) || !protocols.includes(PROTOCOL)) {
    socket.end(`HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\nexpected a SPDY/3.1 upgrade of /portForward/{namespace}/{pod} with protocol ${PROTOCOL}\n`);
    return;
  }
  const namespace = decodeURIComponent(match[1] as string);
  const name = decodeURIComponent(match[2] as string);
  socket.write(`HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\nX-Stream-Protocol-Version: ${PROTOCOL}\r\n\r\n`);
  const session = new SpdySession(socket, head);
  const pairs = new Map<string, StreamPair>();
  session.on('stream', (stream: SpdyStream) => {
    const type = stream.headers['streamtype'];
    const requestId = stream.headers['requestid'] ?? String(type === 'data' ? stream.id - 2 : stream.id);
    const pair = pairs.get(requestId) ?? {};
    pairs.set(requestId, pair);
    if (type === 'error') pair.error = stream;
    else if (type === 'data') pair.data = stream;
    else {
      stream.reset();
      return;
    }
    if (pair.error === undefined || pair.data === undefined) return;
    pairs.delete(requestId);
    const containerPort = Number(pair.data.headers['port']);
    forward(pair as Required<StreamPair>, o.podPorts(namespace, name)?.get(containerPort), `${namespace}/${name}`);
  });
}

/** Starts the endpoint on a fresh loopback port. */
export async function startKubeletServer(o: KubeletServerOptions): Promise<KubeletServer> {
  const server: Server = createServer({ cert: o.cert, key: o.key }, (_req, res) => {
    res.writeHead(404, { 'content-type': 'text/plain' }).end('this kubelet serves only /portForward\n');
  });
  const sockets = new Set<Duplex>();
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    portForward(req, socket, head, o);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    port,
    close: () => new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    }),
  };
}
