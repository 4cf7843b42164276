// Test support: a TCP proxy in front of an RTSP camera that can freeze a connection in the middle of an interleaved video RTP packet.
import { once } from 'node:events';
import { connect, createServer } from 'node:net';
import { ProxiedConnection, type Counters, type RtspCuttingProxyStats } from './rtsp-proxied-connection.js';

export type { RtspCuttingProxyStats } from './rtsp-proxied-connection.js';

export interface RtspCuttingProxyOptions {
  /** Port of the RTSP server behind the proxy. */
  targetPort: number;
  /** Its host; default 127.0.0.1. */
  targetHost?: string;
}

export interface RtspCuttingProxy {
  /** The proxy's port on 127.0.0.1. */
  readonly port: number;
  /** rtsp://[user:password@]127.0.0.1:PORT/path through the proxy (credentials URL-encoded). */
  url(path: string, credentials?: { user: string; password: string }): string;
  /**
   * Freezes every connection open at the call (or, if there is none, the next one accepted): at the next
   * interleaved frame from the server that carries a video RTP packet starting a fragmented NAL unit
   * (H.264 FU-A with the S bit, NAL type 28; H.265 FU with the S bit, NAL type 49), the proxy forwards the
   * 4-byte frame header and the first half of the payload, then no more server->client bytes at all: it
   * keeps reading and discarding what the server sends, so the server keeps its session, and keeps both
   * sockets open (client->server bytes are still forwarded). To the client the camera stopped sending in
   * the middle of an access unit, in the middle of an RTP packet. A connection frozen like this stays
   * open even if the server closes its side; proxy.close() or the client ends it. Connections accepted
   * later are forwarded normally.
   *
   * Video is recognised by the RTP payload type: the rtpmap lines of the SDP the server sent on the same
   * connection name H264 or H265; without SDP, channel 0 is taken as video and both NAL layouts are tried.
   *
   * Resolves once every armed connection is frozen (the cut prefix has been handed to the client socket)
   * or has closed, if at least one froze; rejects if none did, or after `timeoutMs` (default 20 s).
   */
  freezeMidPacket(opts?: { timeoutMs?: number }): Promise<void>;
  /**
   * Cancels a freeze that has not happened yet, and lets frozen connections go on: the proxy writes the
   * held back rest of the cut frame, drops whatever else the server sent meanwhile and forwards again from
   * the next frame or RTSP message boundary. The client sees a stall and then a gap in the RTP sequence
   * numbers; RTSP responses sent during the freeze are lost. Never needed for new connections, which are
   * always forwarded normally.
   */
  resume(): void;
  /**
   * A camera that goes off for `ms`: every connection is dropped at once and the port refuses connections (nothing
   * listens on it) until `ms` have passed; then the proxy listens on the same port again and forwards as before.
   * Resolves once it listens again.
   */
  outage(ms: number): Promise<void>;
  /** Live counters (read them; the proxy updates them). */
  readonly stats: Readonly<RtspCuttingProxyStats>;
  /** Destroys every connection and closes the listening socket. */
  close(): Promise<void>;
}

const DEFAULT_FREEZE_TIMEOUT_MS = 20_000;

/** Starts the proxy on 127.0.0.1 (a free port); every accepted connection opens one to the target. */
export async function startRtspCuttingProxy(opts: RtspCuttingProxyOptions): Promise<RtspCuttingProxy> {
  const targetHost = opts.targetHost ?? '127.0.0.1';
  const stats: RtspCuttingProxyStats = {
    connections: 0,
    open: 0,
    clientToServerBytes: 0,
    serverToClientBytes: 0,
    forwardedToClientBytes: 0,
    droppedBytes: 0,
    interleavedFrames: 0,
    fuStartFrames: 0,
    frozen: 0,
  };
  const counters: Counters = { stats };
  const connections = new Set<ProxiedConnection>();
  /** freezeMidPacket() calls made while no connection was open: they take the next one. */
  let waitingForConnection: Array<(conn: ProxiedConnection | undefined) => void> = [];

  const server = createServer((client) => {
    stats.connections += 1;
    stats.open += 1;
    client.setNoDelay(true);
    const upstream = connect({ port: opts.targetPort, host: targetHost });
    upstream.setNoDelay(true);
    const conn = new ProxiedConnection(client, upstream, counters);
    connections.add(conn);
    client.on('close', () => {
      stats.open -= 1;
      connections.delete(conn);
    });
    const waiting = waitingForConnection;
    waitingForConnection = [];
    for (const take of waiting) take(conn);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('rtsp cutting proxy: no TCP address');
  const port = address.port;

  const freezeMidPacket = async (freezeOpts: { timeoutMs?: number } = {}): Promise<void> => {
    const timeoutMs = freezeOpts.timeoutMs ?? DEFAULT_FREEZE_TIMEOUT_MS;
    const open = [...connections].filter((c) => !c.closed);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new Error(`freezeMidPacket: no video fragment start within ${timeoutMs} ms`)), timeoutMs);
    });
    const frozen =
      open.length > 0
        ? Promise.all(open.map((c) => c.arm()))
        : new Promise<ProxiedConnection | undefined>((resolve) => waitingForConnection.push(resolve)).then((c) =>
            Promise.all([c === undefined ? false : c.arm()]),
          );
    try {
      const results = await Promise.race([frozen, timeout]);
      if (!results.includes(true)) throw new Error('freezeMidPacket: the connections closed (or resume() was called) before freezing');
    } finally {
      clearTimeout(timer);
    }
  };

  return {
    port,
    url: (path, credentials) => {
      const p = path.startsWith('/') ? path : `/${path}`;
      const login = credentials !== undefined ? `${encodeURIComponent(credentials.user)}:${encodeURIComponent(credentials.password)}@` : '';
      return `rtsp://${login}127.0.0.1:${port}${p}`;
    },
    freezeMidPacket,
    resume: () => {
      const waiting = waitingForConnection;
      waitingForConnection = [];
      for (const cancel of waiting) cancel(undefined);
      for (const conn of connections) conn.resume();
    },
    stats,
    outage: async (ms) => {
      for (const conn of connections) conn.destroy();
      server.close();
      await new Promise((resolve) => setTimeout(resolve, ms));
      server.listen(port, '127.0.0.1');
      await once(server, 'listening');
    },
    close: async () => {
      const waiting = waitingForConnection;
      waitingForConnection = [];
      for (const cancel of waiting) cancel(undefined);
      for (const conn of connections) conn.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
