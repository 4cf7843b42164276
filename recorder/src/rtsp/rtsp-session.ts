// One camera's RTSP session: OPTIONS→DESCRIBE (auth, redirects)→SETUP→PLAY, RTP/RTCP dispatch, keep-alive, TEARDOWN.
import { KeepAlive } from './keep-alive.js';
import { RtspClient } from './rtsp-client.js';
import type { RtspLogger } from './rtsp-connection.js';
import { RtspClosedError, RtspError, RtspProtocolError, RtspStatusError } from './rtsp-errors.js';
import type { RtspResponse } from './rtsp-message.js';
import { matchRtpInfoUrl, parseRtpInfo, parseSessionHeader, parseTransport, refusesTransport } from './rtsp-session-headers.js';
import type { RtspPlayResult, RtspSessionOptions, RtspTrack } from './rtsp-session-types.js';
import { parseRtspUrl, redact, resolveLocation } from './rtsp-url.js';
import { parseSdp, type Sdp, type SdpMedia } from './sdp.js';
import { UdpTrackSockets } from './udp-transport.js';

// The session module is the one import callers need.
export type { RtspLogger, RtspPlayResult, RtspSessionOptions, RtspTrack };
export type { Sdp, SdpMedia, SdpRtpMap } from './sdp.js';
export { defaultMediaIndexes } from './sdp.js';
export { refusesTransport } from './rtsp-session-headers.js';
export { ReadScheduler, type ReadSchedulerOptions } from './read-scheduler.js';
export * from './rtsp-errors.js';

const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_USER_AGENT = 'Vigil';
const MAX_REDIRECTS = 5;
const TEARDOWN_TIMEOUT_MS = 2_000;

function ok(res: RtspResponse): boolean {
  return res.status >= 200 && res.status < 300;
}

function statusError(method: string, uri: string, res: RtspResponse): RtspStatusError {
  return new RtspStatusError(method, res.status, res.reason, redact(uri));
}

type State = 'opening' | 'described' | 'setting-up' | 'ready' | 'failed' | 'playing' | 'closed';

/**
 * Usage: `const s = await RtspSession.open(opts)` (OPTIONS, DESCRIBE; s.sdp is the parsed SDP), then
 * `await s.setup(defaultMediaIndexes(s.sdp))` (SETUP each chosen media; s.tracks), then `await s.play()`;
 * packets arrive through opts.onRtp (a byte range) and onRtcp (a view) IN A READ BUFFER SHARED BY ALL SESSIONS, valid
 * only during the call (copy to keep); `await s.close()` sends TEARDOWN. The session never retries or
 * reconnects on its own (beyond one authenticated retry of a 401): after onClose, the caller opens a new one.
 */
export class RtspSession {
  private state: State = 'opening';
  private readonly client: RtspClient;
  private sdpValue: Sdp | undefined;
  private publicMethods: ReadonlySet<string> | undefined;
  private sessionTimeoutS = 60;
  private readonly trackList: RtspTrack[] = [];
  private readonly udp: UdpTrackSockets[] = [];
  /** Interleaved channel → track * 2 (+1 for RTCP), or -1. */
  private readonly channels = new Int16Array(256).fill(-1);
  private keepAlive: KeepAlive | undefined;
  private closeRequested = false;
  private transportInUse: 'tcp' | 'udp';
  private refusal: string | undefined;
  private closeError: Error | undefined;
  private closing: Promise<void> | undefined;
  private notifyClosed!: () => void;
  private readonly closedSignal = new Promise<void>((resolve) => (this.notifyClosed = resolve));

  private constructor(private readonly opts: RtspSessionOptions) {
    this.transportInUse = opts.transport ?? 'tcp';
    this.client = new RtspClient({
      url: parseRtspUrl(opts.url),
      timeoutMs: opts.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      userAgent: opts.userAgent ?? DEFAULT_USER_AGENT,
      scheduler: opts.readScheduler,
      tlsRejectUnauthorized: opts.tlsRejectUnauthorized ?? true,
      log: opts.log,
      ...(opts.idle === undefined ? {} : { idle: opts.idle }),
      onFrame: (channel, buffer, start, end) => this.onFrame(channel, buffer, start, end),
      onClose: (err) => this.onConnectionClosed(err),
    });
  }

  /** Connects, sends OPTIONS and DESCRIBE (following up to 5 redirects), and resolves with the described session. */
  static async open(options: RtspSessionOptions): Promise<RtspSession> {
    if (options.transport !== undefined && options.transport !== 'tcp' && options.transport !== 'udp') {
      throw new RtspError(`unknown RTSP transport '${String(options.transport)}' (use 'tcp' or 'udp')`);
    }
    const session = new RtspSession(options);
    try {
      await session.describe();
    } catch (err) {
      session.state = 'closed';
      session.client.close();
      throw err;
    }
    return session;
  }

  /** The parsed SDP of DESCRIBE: media with rtpmap, fmtp, control URL... */
  get sdp(): Sdp {
    if (this.sdpValue === undefined) throw new RtspError('the session has no SDP before open() resolves');
    return this.sdpValue;
  }

  /** The set-up tracks, indexed as onRtp/onRtcp/sendRtcp number them. */
  get tracks(): readonly RtspTrack[] {
    return this.trackList;
  }

  /** The transport the tracks are set up with: the one asked for, or the other one when the camera refused it. */
  get transport(): 'tcp' | 'udp' {
    return this.transportInUse;
  }

  /** The camera's answer to the transport first asked for ("461 Unsupported transport"), when setup() switched. */
  get transportRefusal(): string | undefined {
    return this.refusal;
  }

  /** The camera URL after redirects, redacted. */
  get redactedUrl(): string {
    return this.client.url.redacted;
  }

  get closed(): boolean {
    return this.state === 'closed';
  }

  private async describe(): Promise<void> {
    for (let redirects = 0; ; redirects++) {
      await this.client.connect();
      const uri = this.client.url.requestUrl;
      let res = await this.client.send('OPTIONS', uri);
      if (res.status >= 300 && res.status < 400) {
        this.redirect(res, redirects);
        continue;
      }
      // Cameras that answer OPTIONS badly still DESCRIBE fine; only the keep-alive method depends on it.
      if (ok(res)) this.publicMethods = new Set((res.headers.get('public') ?? '').split(',').map((m) => m.trim().toUpperCase()));
      res = await this.client.send('DESCRIBE', uri, { Accept: 'application/sdp' });
      if (res.status >= 300 && res.status < 400) {
        this.redirect(res, redirects);
        continue;
      }
      if (!ok(res)) throw statusError('DESCRIBE', uri, res);
      this.sdpValue = parseSdp(res.body.toString('utf8'), this.contentBase(res));
      if (!this.client.connected) throw this.closeError ?? new RtspClosedError('the camera closed the connection after DESCRIBE');
      this.state = 'described';
      this.opts.log?.debug?.({ url: this.client.url.redacted, media: this.sdpValue.media.length }, 'rtsp described');
      return;
    }
  }

  private redirect(res: RtspResponse, redirects: number): void {
    const location = res.headers.get('location');
    const from = this.client.url;
    if (location === undefined) throw new RtspProtocolError(`a ${res.status} redirect without a Location header from ${from.redacted}`);
    if (redirects >= MAX_REDIRECTS) throw new RtspError(`more than ${MAX_REDIRECTS} redirects, last to ${redact(location)}`);
    const to = resolveLocation(from, location, from.credentials);
    this.opts.log?.info?.({ from: from.redacted, to: to.redacted, status: res.status }, 'rtsp redirect');
    this.client.moveTo(to);
  }

  /** Content-Base, else Content-Location, else the request URL; never with userinfo. */
  private contentBase(res: RtspResponse): string {
    for (const name of ['content-base', 'content-location']) {
      const value = res.headers.get(name);
      if (value === undefined || value === '') continue;
      try {
        return parseRtspUrl(new URL(value, this.client.url.requestUrl).toString()).requestUrl;
      } catch {
        // An unusable header: fall through to the next candidate.
      }
    }
    return this.client.url.requestUrl;
  }

  /** SETUPs the given media (indexes into sdp.media), once, before play(). Track i is mediaIndexes[i]. */
  async setup(mediaIndexes: readonly number[]): Promise<readonly RtspTrack[]> {
    if (this.state !== 'described') throw new RtspError('setup() runs once, after open() and before play()');
    if (mediaIndexes.length === 0 || mediaIndexes.length > 127) throw new RtspError('setup() needs 1 to 127 media indexes');
    if (new Set(mediaIndexes).size !== mediaIndexes.length) throw new RtspError('setup() got the same media twice');
    const media = mediaIndexes.map((i) => {
      const m = this.sdp.media[i];
      if (m === undefined) throw new RtspError(`setup(): the SDP has no media ${i} (it has ${this.sdp.media.length})`);
      return m;
    });
    this.state = 'setting-up';
    try {
      for (const [index, m] of media.entries()) {
        if (index > 0 || this.opts.fallbackTransport !== true) {
          await this.setupTrack(index, m);
          continue;
        }
        try {
          await this.setupTrack(index, m);
        } catch (err) {
          // The first SETUP refused the transport (no session exists yet): ask for the other one on the same connection.
          if (!(err instanceof RtspStatusError) || !refusesTransport(err.status) || this.client.sessionId !== undefined) throw err;
          this.refusal = `${err.status} ${err.reason}`.trim();
          const refused = this.transportInUse;
          this.transportInUse = refused === 'tcp' ? 'udp' : 'tcp';
          this.opts.log?.info?.({ url: this.client.url.redacted, refused, next: this.transportInUse, status: err.status }, 'rtsp transport refused; trying the other one');
          await this.setupTrack(index, m);
        }
      }
    } catch (err) {
      // Half set up is no state to PLAY from; close() still tears down what the camera did set up.
      if (this.state === 'setting-up') this.state = 'failed';
      throw err;
    }
    if (this.state === 'setting-up') this.state = 'ready';
    return this.trackList;
  }

  private async setupTrack(index: number, media: SdpMedia): Promise<void> {
    const udp = this.transportInUse === 'udp';
    let sockets: UdpTrackSockets | undefined;
    try {
      if (udp) sockets = await this.bindUdp(index);
      await this.setupOver(index, media, sockets);
    } catch (err) {
      sockets?.close();
      throw err;
    }
    if (sockets !== undefined) this.udp.push(sockets);
  }

  private async bindUdp(index: number): Promise<UdpTrackSockets> {
    {
      // dgram events are not inside the connection's read callback, so a throwing handler is caught here.
      const guarded = (slot: number) => (packet: Buffer): void => {
        try {
          this.deliver(slot, packet, 0, packet.length);
        } catch (err) {
          this.client.close(err instanceof Error ? err : new Error(String(err)));
        }
      };
      return UdpTrackSockets.bind(this.cameraAddress(), { onRtp: guarded(index * 2), onRtcp: guarded(index * 2 + 1) });
    }
  }

  private async setupOver(index: number, media: SdpMedia, sockets: UdpTrackSockets | undefined): Promise<void> {
    const transport = sockets !== undefined
      ? `RTP/AVP;unicast;client_port=${sockets.rtpPort}-${sockets.rtpPort + 1}`
      : `RTP/AVP/TCP;unicast;interleaved=${2 * index}-${2 * index + 1}`;
    const res = await this.client.send('SETUP', media.controlUrl, { Transport: transport });
    if (!ok(res)) throw statusError('SETUP', media.controlUrl, res);
    const sessionHeader = res.headers.get('session');
    if (sessionHeader !== undefined && this.client.sessionId === undefined) {
      const parsed = parseSessionHeader(sessionHeader);
      this.client.sessionId = parsed.id;
      this.sessionTimeoutS = parsed.timeoutS;
    }
    const answer = parseTransport(res.headers.get('transport') ?? '');
    let rtpChannel: number | undefined;
    let rtcpChannel: number | undefined;
    if (sockets !== undefined) {
      if (answer.protocol.includes('TCP') || answer.serverPorts === undefined) {
        throw new RtspProtocolError(`SETUP ${redact(media.controlUrl)}: the camera did not answer with UDP server ports`);
      }
      sockets.setServer(this.cameraAddress(), answer.serverPorts[0], answer.serverPorts[1]);
    } else {
      if (!answer.protocol.includes('TCP') && answer.protocol !== '') {
        throw new RtspProtocolError(`SETUP ${redact(media.controlUrl)}: the camera answered with transport ${answer.protocol}, not TCP`);
      }
      [rtpChannel, rtcpChannel] = answer.interleaved ?? [2 * index, 2 * index + 1];
      if (this.channels[rtpChannel] !== -1 || this.channels[rtcpChannel] !== -1) {
        throw new RtspProtocolError(`SETUP ${redact(media.controlUrl)}: the camera reused interleaved channel ${rtpChannel}`);
      }
      this.channels[rtpChannel] = index * 2;
      this.channels[rtcpChannel] = index * 2 + 1;
    }
    this.trackList.push({ index, media, rtpChannel, rtcpChannel, clientPort: sockets?.rtpPort, ssrc: answer.ssrc, rtpInfo: undefined });
  }

  /** PLAY on the aggregate control URL; afterwards reads are coalesced by the ReadScheduler and keep-alives run. */
  async play(options: { range?: string } = {}): Promise<RtspPlayResult> {
    if (this.state !== 'ready') throw new RtspError('play() runs once, after setup()');
    const uri = this.sdp.controlUrl;
    const res = await this.client.send('PLAY', uri, { Range: options.range ?? 'npt=0.000-' });
    if (!ok(res)) throw statusError('PLAY', uri, res);
    if (!this.client.connected) throw this.closeError ?? new RtspClosedError('the camera closed the connection after PLAY');
    const controls = this.trackList.map((t) => t.media.controlUrl);
    const rtpInfo = parseRtpInfo(res.headers.get('rtp-info') ?? '').map((entry, _i, all) => {
      let track = matchRtpInfoUrl(entry.url, controls);
      if (track === undefined && all.length === 1 && controls.length === 1) track = 0;
      const t = track === undefined ? undefined : this.trackList[track];
      if (t !== undefined) t.rtpInfo = { seq: entry.seq, rtptime: entry.rtptime };
      return { ...entry, track };
    });
    this.state = 'playing';
    this.client.conn.streaming = true;
    this.keepAlive = new KeepAlive({
      method: this.publicMethods?.has('GET_PARAMETER') === true ? 'GET_PARAMETER' : 'OPTIONS',
      uris: { GET_PARAMETER: uri, OPTIONS: this.client.url.requestUrl },
      sessionTimeoutS: this.sessionTimeoutS,
      send: (method, requestUri) => this.client.send(method, requestUri),
      fail: (err) => this.client.close(err),
      log: this.opts.log,
      redactedUrl: this.client.url.redacted,
    });
    this.keepAlive.start();
    this.opts.log?.info?.({ url: this.client.url.redacted, tracks: this.trackList.length, transport: this.transportInUse }, 'rtsp playing');
    return { range: res.headers.get('range'), rtpInfo };
  }

  /** Writes an RTCP packet for `track` (receiver reports): a '$' frame on its odd channel, or a UDP datagram. */
  sendRtcp(track: number, packet: Buffer): boolean {
    const t = this.trackList[track];
    if (t === undefined || this.state === 'closed') return false;
    if (t.rtcpChannel !== undefined) return this.client.conn.sendFrame(t.rtcpChannel, packet);
    return this.udp[track]?.sendRtcp(packet) ?? false;
  }

  /** TEARDOWN (best effort, 2 s at most), then closes; resolves once onClose has been called. Idempotent. */
  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  private async shutdown(): Promise<void> {
    if (this.state === 'closed') return;
    this.closeRequested = true;
    this.stopKeepAlive();
    const conn = this.client.conn;
    if (!conn.closed && this.client.sessionId !== undefined) {
      // The answer must not wait for the read scheduler's next tick.
      conn.streaming = false;
      conn.resume();
      try {
        await this.client.send('TEARDOWN', this.sdp.controlUrl, {}, Math.min(TEARDOWN_TIMEOUT_MS, this.opts.timeoutMs ?? DEFAULT_TIMEOUT_MS));
      } catch {
        // Best effort: the camera forgets the session at its timeout anyway.
      }
    }
    conn.close();
    await this.closedSignal;
  }

  /** Keep-alive requests answered with success so far (for tests and metrics). */
  get keepAlives(): number {
    return this.keepAlive?.answered ?? 0;
  }

  private stopKeepAlive(): void {
    this.keepAlive?.stop();
  }

  /** Where UDP packets come from: the address the RTSP connection reached. */
  private cameraAddress(): string {
    return this.client.conn.remoteAddress ?? this.client.url.host;
  }

  private onFrame(channel: number, buffer: Buffer, start: number, end: number): void {
    const slot = this.channels[channel] as number;
    if (slot >= 0) this.deliver(slot, buffer, start, end);
  }

  /** slot = track * 2 (+1 for RTCP). Nothing is delivered once close() was called, though TEARDOWN still runs. */
  private deliver(slot: number, buffer: Buffer, start: number, end: number): void {
    if (this.closeRequested) return;
    if ((slot & 1) === 0) this.opts.onRtp?.(slot >> 1, buffer, start, end);
    else this.opts.onRtcp?.(slot >> 1, buffer.subarray(start, end));
  }

  private onConnectionClosed(err: Error | undefined): void {
    this.closeError ??= err;
    this.stopKeepAlive();
    for (const s of this.udp) s.close();
    // While open() runs, its pending request rejects instead; after it failed there is nobody to tell.
    if (this.state === 'opening' || this.state === 'closed') return;
    this.state = 'closed';
    if (err !== undefined && !this.closeRequested) this.opts.log?.warn?.({ url: this.client.url.redacted, err: err.message }, 'rtsp session ended');
    try {
      this.opts.onClose?.(this.closeRequested ? undefined : err);
    } finally {
      this.notifyClosed();
    }
  }
}
