// Test support: a TCP proxy in front of an RTSP camera that can freeze a connection in the middle of an interleaved video RTP packet.
import { once } from 'node:events';
import { connect, createServer, type Socket } from 'node:net';

export interface RtspCuttingProxyOptions {
  /** Port of the RTSP server behind the proxy. */
  targetPort: number;
  /** Its host; default 127.0.0.1. */
  targetHost?: string;
}

export interface RtspCuttingProxyStats {
  /** Connections accepted so far. */
  connections: number;
  /** Connections currently open (client side). */
  open: number;
  /** Bytes read from the clients (all forwarded to the server). */
  clientToServerBytes: number;
  /** Bytes read from the server. */
  serverToClientBytes: number;
  /** Bytes of those written to the clients. */
  forwardedToClientBytes: number;
  /** Bytes of those not written (frozen connections). */
  droppedBytes: number;
  /** Interleaved ($) frames seen from the server, on any channel. */
  interleavedFrames: number;
  /** Of those: video RTP packets that start a fragmented NAL unit (H.264 FU-A or H.265 FU with the S bit). */
  fuStartFrames: number;
  /** Connections frozen by freezeMidPacket() so far. */
  frozen: number;
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

/** Payload bytes kept from every interleaved frame to decide whether it starts a fragmented NAL unit. */
const HEAD_BYTES = 96;
/** An RTSP message head longer than this means the byte stream is not understood any more. */
const MAX_TEXT_HEAD = 64 * 1024;
/** SDP bodies larger than this are forwarded but not read. */
const MAX_BODY_KEPT = 64 * 1024;
const DEFAULT_FREEZE_TIMEOUT_MS = 20_000;

type VideoCodec = 'h264' | 'h265';
type Mode = 'forward' | 'armed' | 'frozen' | 'resync';
type Unit = 'boundary' | 'header' | 'payload' | 'text' | 'body' | 'lost';

/**
 * Does this RTP packet start a fragmented NAL unit? `codec` undefined tries both layouts. undefined if
 * `head` (the first bytes of the packet) is too short to tell.
 */
export function isFragmentStart(head: Buffer, codec: VideoCodec | undefined): boolean | undefined {
  if (head.length < 12) return undefined;
  const b0 = head[0] ?? 0;
  if (b0 >> 6 !== 2) return false;
  let offset = 12 + 4 * (b0 & 0x0f);
  if ((b0 & 0x10) !== 0) {
    if (head.length < offset + 4) return undefined;
    offset += 4 + 4 * head.readUInt16BE(offset + 2);
  }
  if (head.length < offset + 3) return undefined;
  const n0 = head[offset] ?? 0;
  const n1 = head[offset + 1] ?? 0;
  const n2 = head[offset + 2] ?? 0;
  const h264 = (n0 & 0x1f) === 28 && (n1 & 0x80) !== 0;
  const h265 = ((n0 >> 1) & 0x3f) === 49 && (n2 & 0x80) !== 0;
  if (codec === 'h264') return h264;
  if (codec === 'h265') return h265;
  return h264 || h265;
}

/** Payload type -> video codec, from the a=rtpmap lines of an SDP. */
function parseRtpmap(sdp: string, into: Map<number, VideoCodec | 'other'>): void {
  for (const match of sdp.matchAll(/^a=rtpmap:(\d+)\s+([A-Za-z0-9_.-]+)\//gm)) {
    const pt = Number(match[1]);
    const name = (match[2] ?? '').toUpperCase();
    into.set(pt, name === 'H264' ? 'h264' : name === 'H265' ? 'h265' : 'other');
  }
}

interface Counters {
  stats: RtspCuttingProxyStats;
}

class ProxiedConnection {
  mode: Mode = 'forward';
  closed = false;
  private unit: Unit = 'boundary';
  // Interleaved frame being read.
  private readonly header = Buffer.alloc(4);
  private headerHave = 0;
  private channel = 0;
  private frameLength = 0;
  private payloadHave = 0;
  private readonly head = Buffer.alloc(HEAD_BYTES);
  private headHave = 0;
  private fragmentStart = false;
  // RTSP message being read.
  private text = '';
  private bodyLeft = 0;
  private body = '';
  private readonly payloadTypes = new Map<number, VideoCodec | 'other'>();
  // Freeze.
  private cutFrameOpen = false;
  private held: Buffer[] = [];
  private freezeWaiters: Array<(frozen: boolean) => void> = [];
  private serverPaused = false;

  constructor(
    readonly client: Socket,
    readonly server: Socket,
    private readonly counters: Counters,
  ) {
    client.on('data', (chunk: Buffer) => {
      counters.stats.clientToServerBytes += chunk.length;
      if (!server.destroyed && !server.write(chunk)) {
        client.pause();
        server.once('drain', () => client.resume());
      }
    });
    server.on('data', (chunk: Buffer) => this.onServerData(chunk));
    client.on('error', () => undefined);
    server.on('error', () => undefined);
    client.on('close', () => {
      this.closed = true;
      server.destroy();
      this.settleFreeze(false);
    });
    server.on('close', () => {
      // A frozen camera never says goodbye: the client keeps waiting on its open socket.
      if (this.mode === 'frozen') return;
      client.end();
      this.settleFreeze(false);
    });
  }

  /** Resolves true once frozen, false if the connection closed first or the freeze was cancelled. */
  arm(): Promise<boolean> {
    if (this.mode === 'frozen') return Promise.resolve(true);
    if (this.closed) return Promise.resolve(false);
    this.mode = 'armed';
    return new Promise((resolve) => this.freezeWaiters.push(resolve));
  }

  resume(): void {
    if (this.mode === 'armed') {
      this.mode = 'forward';
      this.settleFreeze(false);
      return;
    }
    if (this.mode !== 'frozen') return;
    const tail = Buffer.concat(this.held);
    this.held = [];
    if (tail.length > 0) this.writeToClient(tail);
    if (this.cutFrameOpen) {
      // The rest of the cut frame is what comes next.
      this.cutFrameOpen = false;
      this.mode = 'forward';
    } else {
      this.mode = this.unit === 'boundary' ? 'forward' : 'resync';
    }
    // The server went away while the connection was frozen: now the client may see it.
    if (this.server.destroyed) this.client.end();
  }

  destroy(): void {
    this.client.destroy();
    this.server.destroy();
  }

  private settleFreeze(frozen: boolean): void {
    const waiters = this.freezeWaiters;
    this.freezeWaiters = [];
    for (const resolve of waiters) resolve(frozen);
  }

  private writeToClient(data: Buffer, done?: () => void): void {
    if (this.client.destroyed) {
      done?.();
      return;
    }
    this.counters.stats.forwardedToClientBytes += data.length;
    const ok = this.client.write(data, () => done?.());
    if (!ok && !this.serverPaused) {
      this.serverPaused = true;
      this.server.pause();
      this.client.once('drain', () => {
        this.serverPaused = false;
        this.server.resume();
      });
    }
  }

  private onServerData(chunk: Buffer): void {
    const stats = this.counters.stats;
    stats.serverToClientBytes += chunk.length;
    const out: Buffer[] = [];
    let justFroze = false;
    let i = 0;
    while (i < chunk.length) {
      const before = this.mode;
      const n = this.step(chunk, i);
      const bytes = chunk.subarray(i, i + n);
      i += n;
      if (before === 'forward' || before === 'armed') {
        out.push(bytes);
        if (this.mode === 'frozen') justFroze = true;
      } else if (before === 'frozen' && this.cutFrameOpen) {
        this.held.push(Buffer.from(bytes));
        stats.droppedBytes += bytes.length;
      } else {
        stats.droppedBytes += bytes.length;
      }
      if (this.unit === 'boundary') {
        // A unit just ended (or none had started).
        if (before === 'frozen') this.cutFrameOpen = false;
        if (this.mode === 'resync') this.mode = 'forward';
      }
    }
    const data = out.length === 1 ? out[0] : Buffer.concat(out);
    if (justFroze) {
      stats.frozen += 1;
      this.writeToClient(data ?? Buffer.alloc(0), () => this.settleFreeze(true));
    } else if (data !== undefined && data.length > 0) {
      this.writeToClient(data);
    }
  }

  /** Consumes bytes of the current unit from chunk[i..]; returns how many (0 only on a unit change). */
  private step(chunk: Buffer, i: number): number {
    const left = chunk.length - i;
    switch (this.unit) {
      case 'boundary': {
        if (chunk[i] === 0x24) {
          this.unit = 'header';
          this.headerHave = 0;
        } else {
          this.unit = 'text';
          this.text = '';
        }
        return this.step(chunk, i);
      }
      case 'header': {
        const n = Math.min(left, 4 - this.headerHave);
        chunk.copy(this.header, this.headerHave, i, i + n);
        this.headerHave += n;
        if (this.headerHave === 4) {
          this.counters.stats.interleavedFrames += 1;
          this.channel = this.header[1] ?? 0;
          this.frameLength = this.header.readUInt16BE(2);
          this.payloadHave = 0;
          this.headHave = 0;
          this.fragmentStart = false;
          this.unit = this.frameLength > 0 ? 'payload' : 'boundary';
        }
        return n;
      }
      case 'payload': {
        const headTarget = Math.min(HEAD_BYTES, this.frameLength);
        let n = Math.min(left, this.frameLength - this.payloadHave);
        if (this.headHave < headTarget) {
          n = Math.min(n, headTarget - this.headHave);
          chunk.copy(this.head, this.headHave, i, i + n);
          this.headHave += n;
          this.payloadHave += n;
          if (this.headHave === headTarget) this.decide();
        } else {
          const cutAt = Math.floor(this.frameLength / 2);
          if (this.mode === 'armed' && this.fragmentStart && this.payloadHave < cutAt) {
            n = Math.min(n, cutAt - this.payloadHave);
            this.payloadHave += n;
            if (this.payloadHave === cutAt) {
              this.mode = 'frozen';
              this.cutFrameOpen = true;
            }
          } else {
            this.payloadHave += n;
          }
        }
        if (this.payloadHave === this.frameLength) this.unit = 'boundary';
        return n;
      }
      case 'text': {
        const from = Math.max(0, this.text.length - 3);
        const piece = chunk.toString('latin1', i, chunk.length);
        const all = this.text + piece;
        const end = all.indexOf('\r\n\r\n', from);
        if (end < 0) {
          this.text = all;
          if (this.text.length > MAX_TEXT_HEAD) this.unit = 'lost';
          return left;
        }
        const used = end + 4 - this.text.length;
        const head = all.slice(0, end);
        this.text = '';
        const length = /^content-length:\s*(\d+)\s*$/im.exec(head);
        this.bodyLeft = length?.[1] !== undefined ? Number(length[1]) : 0;
        this.body = '';
        this.unit = this.bodyLeft > 0 ? 'body' : 'boundary';
        return used;
      }
      case 'body': {
        const n = Math.min(left, this.bodyLeft);
        if (this.body.length < MAX_BODY_KEPT) this.body += chunk.toString('latin1', i, i + n);
        this.bodyLeft -= n;
        if (this.bodyLeft === 0) {
          parseRtpmap(this.body, this.payloadTypes);
          this.body = '';
          this.unit = 'boundary';
        }
        return n;
      }
      case 'lost':
        // Not RTSP as understood here: pass everything through, never cut.
        return left;
    }
  }

  /** Called once the head of an interleaved frame is in: is it a video packet starting a fragmented NAL? */
  private decide(): void {
    if (this.channel % 2 !== 0 || this.headHave < 12) return;
    const head = this.head.subarray(0, this.headHave);
    const pt = (head[1] ?? 0) & 0x7f;
    const known = this.payloadTypes.get(pt);
    let codec: VideoCodec | undefined;
    if (known === 'h264' || known === 'h265') codec = known;
    else if (known === 'other') return;
    else if (this.channel !== 0) return;
    if (isFragmentStart(head, codec) === true) {
      this.fragmentStart = true;
      this.counters.stats.fuStartFrames += 1;
    }
  }
}

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
