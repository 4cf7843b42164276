// A playing session's keep-alive: GET_PARAMETER (or OPTIONS) every session-timeout/2, and what its answers mean.
import type { RtspLogger } from './rtsp-connection.js';
import { RtspStatusError } from './rtsp-errors.js';
import type { RtspResponse } from './rtsp-message.js';
import { redact } from './rtsp-url.js';

/** Below this the camera's stated timeout is not believed (a keep-alive storm helps nobody). */
const MIN_INTERVAL_MS = 1_000;

export type KeepAliveMethod = 'GET_PARAMETER' | 'OPTIONS';

export interface KeepAliveOptions {
  /** GET_PARAMETER when the camera's OPTIONS answer listed it in Public, else OPTIONS. */
  readonly method: KeepAliveMethod;
  /** The request URI per method (GET_PARAMETER goes to the aggregate control URL, OPTIONS to the camera URL). */
  readonly uris: Readonly<Record<KeepAliveMethod, string>>;
  /** The Session header's timeout. */
  readonly sessionTimeoutS: number;
  /** Sends one request with the session's Session and Authorization headers. */
  readonly send: (method: string, uri: string) => Promise<RtspResponse>;
  /** Ends the session; a request that timed out has already closed the connection itself. */
  readonly fail: (err: Error) => void;
  readonly log: RtspLogger | undefined;
  readonly redactedUrl: string;
}

export class KeepAlive {
  /** Keep-alive requests answered with success so far. */
  answered = 0;
  private method: KeepAliveMethod;
  private timer: NodeJS.Timeout | undefined;
  private inFlight = false;

  constructor(private readonly opts: KeepAliveOptions) {
    this.method = opts.method;
  }

  start(): void {
    const every = Math.max(MIN_INTERVAL_MS, (this.opts.sessionTimeoutS * 1000) / 2);
    this.timer = setInterval(() => this.tick(), every);
  }

  stop(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
  }

  private tick(): void {
    // An answer slower than the interval is already a request timeout (timeoutMs) closing the connection.
    if (this.inFlight || this.timer === undefined) return;
    this.inFlight = true;
    const method = this.method;
    const uri = this.opts.uris[method];
    this.opts.send(method, uri).then(
      (res) => {
        this.inFlight = false;
        if (res.status >= 200 && res.status < 300) {
          this.answered++;
          return;
        }
        if (res.status === 454) {
          // Session Not Found: the camera dropped us; packets will not come back.
          this.opts.fail(new RtspStatusError(method, res.status, res.reason, redact(uri)));
          return;
        }
        // Some cameras list GET_PARAMETER in Public and then refuse it.
        if (method === 'GET_PARAMETER' && (res.status === 405 || res.status === 501 || res.status === 551)) this.method = 'OPTIONS';
        this.opts.log?.warn?.({ url: this.opts.redactedUrl, method, status: res.status }, 'rtsp keep-alive refused');
      },
      (err: unknown) => {
        this.inFlight = false;
        if (this.timer !== undefined) this.opts.fail(err instanceof Error ? err : new Error(String(err)));
      },
    );
  }
}
