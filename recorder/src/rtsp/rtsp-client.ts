// A session's link to the camera: the current connection, reconnects and redirects, and authenticated requests.
import { REFUSED_MESSAGE, RtspAuthenticator } from './rtsp-auth.js';
import { RtspConnection, type RtspConnectionOptions } from './rtsp-connection.js';
import { RtspAuthError } from './rtsp-errors.js';
import type { RtspResponse } from './rtsp-message.js';
import type { RtspUrl } from './rtsp-url.js';

/** Every connection's settings (`url`: the first one's; redirects move it), and what the client reports. */
export interface RtspClientOptions extends Omit<RtspConnectionOptions, 'onFrame' | 'onClose'> {
  /** An interleaved frame of the current connection, `buffer[start, end)`; valid only during the call. */
  readonly onFrame: (channel: number, buffer: Buffer, start: number, end: number) => void;
  /** The current connection ended (connections given up on purpose by moveTo() or a reconnect do not count). */
  readonly onClose: (err: Error | undefined) => void;
}

export class RtspClient {
  /** Set from the first SETUP answer; sent with every later request. */
  sessionId: string | undefined;
  private currentUrl: RtspUrl;
  private auth: RtspAuthenticator;
  private current: RtspConnection | undefined;
  private readonly retired = new WeakSet<RtspConnection>();

  constructor(private readonly opts: RtspClientOptions) {
    this.currentUrl = opts.url;
    this.auth = new RtspAuthenticator(opts.url.credentials);
  }

  get url(): RtspUrl {
    return this.currentUrl;
  }

  get conn(): RtspConnection {
    if (this.current === undefined) throw new Error('RtspClient: not connected');
    return this.current;
  }

  get connected(): boolean {
    return this.current !== undefined && !this.current.closed;
  }

  /** Opens a connection to the current URL. */
  async connect(): Promise<void> {
    const { onFrame, onClose, ...settings } = this.opts;
    const conn: RtspConnection = await RtspConnection.open({
      ...settings,
      url: this.currentUrl,
      onFrame,
      onClose: (err) => {
        if (conn === this.current && !this.retired.has(conn)) onClose(err);
      },
    });
    this.current = conn;
  }

  /** Follows a redirect: gives up the connection and any challenge; connect() then goes to `url`. */
  moveTo(url: RtspUrl): void {
    this.retire();
    this.currentUrl = url;
    this.auth = new RtspAuthenticator(url.credentials);
  }

  /** Closes the current connection; onClose(err) follows unless it was retired. */
  close(err?: Error): void {
    this.current?.close(err);
  }

  private retire(): void {
    if (this.current === undefined) return;
    this.retired.add(this.current);
    this.current.close();
  }

  /**
   * Sends a request with Session and Authorization headers. A 401 is retried at most once, and only when the
   * retry can succeed (first challenge, or a stale/changed nonce); a second 401 is an RtspAuthError. Never more:
   * a camera refusing us must not see a storm of attempts (it may lock the account).
   */
  async send(method: string, uri: string, headers: Record<string, string> = {}, timeoutMs?: number): Promise<RtspResponse> {
    const build = (): { method: string; uri: string; headers: Record<string, string | undefined> } => ({
      method, uri, headers: { ...headers, Session: this.sessionId, Authorization: this.auth.authorization(method, uri) },
    });
    const hadAuth = this.auth.active;
    let res = await this.conn.request(build(), timeoutMs);
    if (res.status !== 401) return res;
    const outcome = this.auth.accept(res.headers.getAll('www-authenticate'));
    if (hadAuth && !outcome.stale && !outcome.nonceChanged) throw new RtspAuthError(REFUSED_MESSAGE);
    if ((this.conn.closed || res.headers.get('connection')?.toLowerCase() === 'close') && this.sessionId === undefined) {
      // Some cameras hang up after a 401; before SETUP nothing is lost by reconnecting for the one retry.
      this.retire();
      await this.connect();
    }
    res = await this.conn.request(build(), timeoutMs);
    if (res.status === 401) throw new RtspAuthError(REFUSED_MESSAGE);
    return res;
  }
}
