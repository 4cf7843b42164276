// One connection through the credential relay: ffmpeg's RTSP requests passed to the camera with the login added, answers and RTP passed back.
import { connect as netConnect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { isIP } from 'node:net';
import { InterleavedReader } from './interleaved-reader.js';
import { withoutSenderReports } from './relay-rtcp.js';
import { RelayUdpTrack, udpClientPorts } from './relay-udp-track.js';
import { RtspAuthenticator } from './rtsp-auth.js';
import type { RtspLogger } from './rtsp-connection.js';
import { parseTransport } from './rtsp-session-headers.js';
import { serializeFullResponse, serializeRequest, type RtspMessage, type RtspResponse, type RtspServerRequest } from './rtsp-message.js';
import { resolveLocation, type RtspUrl } from './rtsp-url.js';

/** What the relay tells the run that leased it about the camera's answers. */
export interface RelayObserver {
  /** A DESCRIBE was answered (after any login the relay adds). */
  describeAnswered?(status: number, reason: string): void;
  /** A SETUP was answered; `transport` is what it asked for. */
  setupAnswered?(transport: 'tcp' | 'udp', status: number, reason: string): void;
  /** A PLAY was answered. */
  playAnswered?(status: number): void;
}

/** A leased camera: where requests for its token go. */
export interface RelayTarget {
  readonly url: RtspUrl;
  readonly observer: RelayObserver;
}

export interface RelayConnectionOptions {
  /** The target a relay URL's token names, and the part of the path after the token; undefined when it names none. */
  resolve(uri: string): { token: string; target: RelayTarget; rest: string } | undefined;
  /** A relay URL for a camera URL a redirect named, leased alongside `token`. */
  redirect(token: string, url: RtspUrl): string;
  readonly timeoutMs: number;
  readonly tlsRejectUnauthorized: boolean;
  readonly log: RtspLogger | undefined;
  onClose(): void;
}

interface Pending {
  readonly clientCseq: string | undefined;
  readonly request: RtspServerRequest;
  readonly uri: string;
  readonly retried: boolean;
  /** A UDP SETUP: the track whose datagrams the relay carries. */
  readonly udp: RelayUdpTrack | undefined;
}

/** Past this much unsent data one side is not reading: the other side is paused (TCP flow control does the rest). */
const HIGH_WATER = 4 * 1024 * 1024;
const SPECIAL_NAMES: Readonly<Record<string, string>> = { cseq: 'CSeq', 'www-authenticate': 'WWW-Authenticate', 'rtp-info': 'RTP-Info' };

/** Header names as cameras expect to see them (some compare case-sensitively): CSeq, Content-Base, ... */
function canonicalName(name: string): string {
  return SPECIAL_NAMES[name] ?? name.replace(/(^|-)([a-z])/g, (_m, dash: string, c: string) => dash + c.toUpperCase());
}

function frameBytes(channel: number, buffer: Buffer, start: number, end: number): Buffer {
  const frame = Buffer.allocUnsafe(4 + end - start);
  frame[0] = 0x24;
  frame[1] = channel;
  frame.writeUInt16BE(end - start, 2);
  buffer.copy(frame, 4, start, end);
  return frame;
}

/**
 * The client side (ffmpeg on loopback) speaks to `rtsp://127.0.0.1:PORT/<token>[/rest]`; the first request picks the
 * camera. Every request goes on to the camera with its URI rewritten (`<token>` → the camera's URL; any other URI,
 * such as a control URL from the camera's own Content-Base, unchanged), its own CSeq, and an Authorization header
 * computed here: a 401 is answered once, the way the native client does, and only a second refusal reaches ffmpeg.
 * Redirects are rewritten into relay URLs. Media passes both ways, interleaved or (through a `RelayUdpTrack`) over
 * UDP, untouched but for the camera's RTCP Sender Reports, which ffmpeg never sees (`withoutSenderReports`).
 */
export class RelayConnection {
  private readonly clientReader: InterleavedReader;
  private upstream: Socket | undefined;
  private upstreamReader: InterleavedReader | undefined;
  private target: { token: string; target: RelayTarget } | undefined;
  private auth: RtspAuthenticator | undefined;
  private readonly queued: RtspServerRequest[] = [];
  private readonly pending = new Map<number, Pending>();
  private readonly udpTracks = new Set<RelayUdpTrack>();
  /** Interleaved channels the camera's SETUP answers gave to RTCP. */
  private readonly rtcpChannels = new Set<number>();
  private cseq = 0;
  private closed = false;

  constructor(
    private readonly client: Socket,
    private readonly opts: RelayConnectionOptions,
  ) {
    this.clientReader = new InterleavedReader({
      frame: (channel, buffer, start, end) => this.toCamera(frameBytes(channel, buffer, start, end)),
      message: (message) => this.fromClient(message),
    });
    client.setNoDelay(true);
    client.on('data', (chunk: Buffer) => this.feed(this.clientReader, chunk));
    client.on('error', () => this.close());
    client.on('close', () => this.close());
  }

  /** The token this connection serves, once its first request named one. */
  get token(): string | undefined {
    return this.target?.token;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.clientReader.stop();
    this.upstreamReader?.stop();
    this.client.destroy();
    this.upstream?.destroy();
    for (const track of this.udpTracks) track.close();
    this.udpTracks.clear();
    this.opts.onClose();
  }

  private feed(reader: InterleavedReader, chunk: Buffer): void {
    try {
      reader.push(chunk);
    } catch (err) {
      this.opts.log?.warn?.({ err: err instanceof Error ? err.message : String(err) }, 'rtsp relay: unparseable RTSP; connection closed');
      this.close();
    }
  }

  private fromClient(message: RtspMessage): void {
    if (message.kind === 'response') {
      // ffmpeg answering a request the camera sent it.
      this.toCamera(serializeFullResponse(message.status, message.reason, this.named(message.headers.entries()), message.body));
      return;
    }
    if (this.target === undefined) {
      const found = this.opts.resolve(message.uri);
      if (found === undefined) {
        this.client.end(serializeFullResponse(404, 'Not Found', [['CSeq', message.headers.get('cseq') ?? '0']], Buffer.alloc(0)));
        this.close();
        return;
      }
      this.target = { token: found.token, target: found.target };
      this.auth = new RtspAuthenticator(found.target.url.credentials);
      this.connectUpstream(found.target.url);
    }
    if (this.upstream === undefined || this.upstream.connecting) this.queued.push(message);
    else this.forward(message, false);
  }

  private connectUpstream(url: RtspUrl): void {
    const socket = url.tls
      ? tlsConnect({ host: url.host, port: url.port, ...(isIP(url.host) === 0 ? { servername: url.host } : {}), rejectUnauthorized: this.opts.tlsRejectUnauthorized })
      : netConnect({ host: url.host, port: url.port });
    this.upstream = socket;
    const timer = setTimeout(() => this.close(), this.opts.timeoutMs);
    socket.once(url.tls ? 'secureConnect' : 'connect', () => {
      clearTimeout(timer);
      socket.setNoDelay(true);
      for (const request of this.queued.splice(0)) this.forward(request, false);
    });
    this.upstreamReader = new InterleavedReader({
      frame: (channel, buffer, start, end) => this.fromCameraFrame(channel, buffer, start, end),
      message: (message) => this.fromCamera(message),
    });
    const reader = this.upstreamReader;
    socket.on('data', (chunk: Buffer) => this.feed(reader, chunk));
    socket.on('error', () => this.close());
    socket.on('close', () => {
      clearTimeout(timer);
      this.close();
    });
  }

  /** The request URI for the camera: the relay's own URL mapped to the camera's, any other URI as it is. */
  private cameraUri(uri: string): string {
    const found = this.opts.resolve(uri);
    if (found === undefined || found.token !== this.target?.token) return uri;
    return found.target.url.requestUrl + found.rest;
  }

  private fromCameraFrame(channel: number, buffer: Buffer, start: number, end: number): void {
    if (!this.rtcpChannels.has(channel)) {
      this.toClient(frameBytes(channel, buffer, start, end));
      return;
    }
    const passed = withoutSenderReports(buffer.subarray(start, end));
    if (passed !== undefined) this.toClient(frameBytes(channel, passed, 0, passed.length));
  }

  /** A UDP SETUP goes on once the relay's ports for the track are bound (ffmpeg waits for each SETUP's answer). */
  private async forwardUdpSetup(request: RtspServerRequest, ffmpegPorts: readonly [number, number]): Promise<void> {
    const address = this.upstream?.remoteAddress;
    let track: RelayUdpTrack | undefined;
    try {
      if (address !== undefined) track = await RelayUdpTrack.open(address, ffmpegPorts);
    } catch (err) {
      this.opts.log?.warn?.({ err: err instanceof Error ? err.message : String(err) }, 'rtsp relay: no UDP ports for a track; its datagrams go between ffmpeg and the camera directly');
    }
    if (this.closed) {
      track?.close();
      return;
    }
    if (track !== undefined) this.udpTracks.add(track);
    this.forward(request, false, track ?? 'direct');
  }

  private forward(request: RtspServerRequest, retried: boolean, udp?: RelayUdpTrack | 'direct'): void {
    if (this.closed || this.upstream === undefined) return;
    const ffmpegPorts = request.method.toUpperCase() === 'SETUP' ? udpClientPorts(request.headers.get('transport') ?? '') : undefined;
    if (ffmpegPorts !== undefined && udp === undefined) {
      void this.forwardUdpSetup(request, ffmpegPorts);
      return;
    }
    const track = udp === 'direct' ? undefined : udp;
    const cseq = ++this.cseq;
    const uri = this.cameraUri(request.uri);
    const headers: Record<string, string | undefined> = { CSeq: String(cseq) };
    for (const [name, value] of request.headers.entries()) {
      if (name === 'cseq' || name === 'authorization' || name === 'content-length') continue;
      headers[canonicalName(name)] = name === 'transport' && track !== undefined ? track.requestTransport(value) : value;
    }
    headers['Authorization'] = this.auth?.authorization(request.method, uri, request.body);
    this.pending.set(cseq, { clientCseq: request.headers.get('cseq'), request, uri, retried, udp: track });
    this.toCamera(serializeRequest({ method: request.method, uri, headers, body: request.body }));
  }

  private fromCamera(message: RtspMessage): void {
    if (message.kind === 'request') {
      // The camera's own keep-alive (OPTIONS, GET_PARAMETER): ffmpeg answers it.
      this.toClient(serializeRequest({ method: message.method, uri: message.uri, headers: Object.fromEntries(this.named(message.headers.entries())), body: message.body }));
      return;
    }
    const cseq = Number(message.headers.get('cseq'));
    const pending = this.pending.get(cseq) ?? (this.pending.size === 1 ? [...this.pending.values()][0] : undefined);
    this.pending.delete(cseq);
    if (pending === undefined) return;
    if (message.status === 401 && !pending.retried && this.auth !== undefined) {
      const hadAuth = this.auth.active;
      const outcome = this.auth.accept(message.headers.getAll('www-authenticate'));
      if (this.auth.active && (!hadAuth || outcome.stale || outcome.nonceChanged)) {
        this.forward(pending.request, true, pending.udp ?? 'direct');
        return;
      }
    }
    this.toClient(this.answerFor(pending, message));
  }

  /** The camera's answer as ffmpeg gets it: its CSeq, redirects into the relay, and what the run is told. */
  private answerFor(pending: Pending, res: RtspResponse): Buffer {
    const method = pending.request.method.toUpperCase();
    const observer = this.target?.target.observer;
    const headers: Array<[string, string]> = [];
    for (const [name, value] of res.headers.entries()) {
      if (name === 'cseq' || name === 'content-length') continue;
      let out = value;
      if (name === 'location' && this.target !== undefined) {
        try {
          out = this.opts.redirect(this.target.token, resolveLocation(this.target.target.url, value, this.target.target.url.credentials));
        } catch {
          // An unusable Location: ffmpeg sees it as the camera sent it.
        }
      }
      if (name === 'transport' && method === 'SETUP' && res.status >= 200 && res.status < 300) out = this.setUpTransport(value, pending.udp);
      headers.push([canonicalName(name), out]);
    }
    if (pending.clientCseq !== undefined) headers.unshift(['CSeq', pending.clientCseq]);
    if (method === 'DESCRIBE') observer?.describeAnswered?.(res.status, res.reason);
    if (method === 'SETUP' && (res.status < 200 || res.status >= 300) && pending.udp !== undefined) {
      pending.udp.close();
      this.udpTracks.delete(pending.udp);
    }
    if (method === 'SETUP') observer?.setupAnswered?.(/TCP/i.test(pending.request.headers.get('transport') ?? '') ? 'tcp' : 'udp', res.status, res.reason);
    if (method === 'PLAY') observer?.playAnswered?.(res.status);
    return serializeFullResponse(res.status, res.reason, headers, res.body);
  }

  /** A SETUP answer's Transport as ffmpeg gets it; notes the RTCP channel of an interleaved one. */
  private setUpTransport(value: string, udp: RelayUdpTrack | undefined): string {
    if (udp !== undefined) return udp.answerTransport(value);
    const rtcp = parseTransport(value).interleaved?.[1];
    if (rtcp !== undefined && /TCP/i.test(value)) this.rtcpChannels.add(rtcp);
    // A UDP track the relay could not carry: ffmpeg sends its receiver reports to the address it talks RTSP to (this
    // relay) unless told the source.
    if (!/TCP/i.test(value) && !/;\s*source=/i.test(value) && this.upstream?.remoteAddress !== undefined) return `${value};source=${this.upstream.remoteAddress}`;
    return value;
  }

  private named(entries: Iterable<[string, string]>): Array<[string, string]> {
    return [...entries].map(([name, value]) => [canonicalName(name), value]);
  }

  private toCamera(bytes: Buffer): void {
    const up = this.upstream;
    if (this.closed || up === undefined || up.connecting) return;
    up.write(bytes);
    if (up.writableLength > HIGH_WATER) {
      this.client.pause();
      up.once('drain', () => this.client.resume());
    }
  }

  private toClient(bytes: Buffer): void {
    if (this.closed) return;
    this.client.write(bytes);
    const up = this.upstream;
    if (up !== undefined && this.client.writableLength > HIGH_WATER && !up.isPaused()) {
      up.pause();
      this.client.once('drain', () => up.resume());
    }
  }
}
