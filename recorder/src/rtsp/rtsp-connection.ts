// One RTSP connection: the socket (plain TCP with the shared read buffer, or TLS), CSeq, pending requests, close.
import { connect as netConnect, isIP, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { InterleavedReader, type InterleavedSink } from './interleaved-reader.js';
import type { ReadScheduler, ScheduledReader } from './read-scheduler.js';
import { RtspClosedError, RtspTimeoutError } from './rtsp-errors.js';
import { serializeRequest, serializeResponse, type RtspMessage, type RtspRequest, type RtspResponse } from './rtsp-message.js';
import { redact, type RtspUrl } from './rtsp-url.js';

/** A pino-like logger; every method optional. Nothing logged here carries credentials. */
export interface RtspLogger {
  debug?(obj: Record<string, unknown>, msg: string): void;
  info?(obj: Record<string, unknown>, msg: string): void;
  warn?(obj: Record<string, unknown>, msg: string): void;
}

export interface RtspConnectionOptions {
  readonly url: RtspUrl;
  readonly timeoutMs: number;
  readonly userAgent: string;
  readonly scheduler: ReadScheduler;
  readonly tlsRejectUnauthorized: boolean;
  readonly log: RtspLogger | undefined;
  /** Whether nobody waits on this stream with low latency right now (see ReadScheduler); false when absent. */
  readonly idle?: () => boolean;
  /** An interleaved frame, `buffer[start, end)`; valid only during the call (see InterleavedSink). */
  onFrame(channel: number, buffer: Buffer, start: number, end: number): void;
  /** The connection ended after open() resolved; `err` undefined when close() was called without one. */
  onClose(err: Error | undefined): void;
}

interface Pending {
  readonly method: string;
  readonly resolve: (response: RtspResponse) => void;
  readonly reject: (err: Error) => void;
  readonly timer: NodeJS.Timeout;
}

/** RTCP frames are tiny; past this much unsent data the camera is not reading and we drop instead of queueing. */
const MAX_QUEUED_WRITE_BYTES = 256 * 1024;

function asError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}

export class RtspConnection implements ScheduledReader, InterleavedSink {
  /** While true, reads may wait for the scheduler's tick (set after PLAY; never during request/response). */
  streaming = false;
  private readonly socket: Socket;
  private readonly reader = new InterleavedReader(this);
  private readonly pending = new Map<number, Pending>();
  private cseq = 0;
  private opened = false;
  private isClosed = false;

  private constructor(
    private readonly opts: RtspConnectionOptions,
    onOpen: () => void,
    onFail: (err: Error) => void,
  ) {
    const { url, scheduler } = opts;
    const where = `${url.host}:${url.port}`;
    const timer = setTimeout(() => {
      this.fail(new RtspTimeoutError(`connecting to ${where} timed out after ${opts.timeoutMs} ms`));
    }, opts.timeoutMs);
    this.fail = (err) => {
      clearTimeout(timer);
      if (this.isClosed) return;
      if (this.opened) {
        this.close(err);
        return;
      }
      this.isClosed = true;
      this.socket.destroy();
      onFail(err);
    };
    const ready = (): void => {
      clearTimeout(timer);
      this.opened = true;
      this.socket.setNoDelay(true);
      onOpen();
    };
    if (url.tls) {
      this.socket = tlsConnect({
        host: url.host,
        port: url.port,
        ...(isIP(url.host) === 0 ? { servername: url.host } : {}),
        rejectUnauthorized: opts.tlsRejectUnauthorized,
      });
      this.socket.once('secureConnect', ready);
      // TLS sockets have no onread; 'data' feeds the same framing, without pausing between ticks.
      this.socket.on('data', (chunk: Buffer) => {
        scheduler.countRead(chunk.length);
        this.onRead(chunk, chunk.length);
      });
    } else {
      this.socket = netConnect({ host: url.host, port: url.port, onread: scheduler.onreadFor(this) });
      this.socket.once('connect', ready);
    }
    this.socket.on('error', (err) => this.fail(new RtspClosedError(`the connection to ${where} failed: ${err.message}`, { cause: err })));
    this.socket.on('close', () => this.fail(new RtspClosedError(`the camera at ${where} closed the connection`)));
  }

  private readonly fail: (err: Error) => void;

  /** Connects; rejects (and never calls onClose) when the connection cannot be made within timeoutMs. */
  static open(opts: RtspConnectionOptions): Promise<RtspConnection> {
    return new Promise((resolve, reject) => {
      const conn: RtspConnection = new RtspConnection(opts, () => resolve(conn), reject);
    });
  }

  get closed(): boolean {
    return this.isClosed;
  }

  /** The camera's IP address as connected (UDP transport accepts datagrams from it only). */
  get remoteAddress(): string | undefined {
    return this.socket.remoteAddress;
  }

  /** Sends a request (CSeq and User-Agent added) and resolves with its response; rejects and closes on timeout. */
  request(req: RtspRequest, timeoutMs: number = this.opts.timeoutMs): Promise<RtspResponse> {
    if (this.isClosed) return Promise.reject(new RtspClosedError('the RTSP connection is closed'));
    const cseq = ++this.cseq;
    const bytes = serializeRequest({ ...req, headers: { CSeq: String(cseq), 'User-Agent': this.opts.userAgent, ...req.headers } });
    return new Promise<RtspResponse>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.close(new RtspTimeoutError(`${req.method} ${redact(req.uri)}: no answer within ${timeoutMs} ms`));
      }, timeoutMs);
      this.pending.set(cseq, { method: req.method, resolve, reject, timer });
      this.opts.log?.debug?.({ method: req.method, uri: redact(req.uri), cseq }, 'rtsp request');
      this.socket.write(bytes);
      // Reads of a streaming socket may be paused until the next tick; the answer then waits at most tickMs.
    });
  }

  /** Writes one '$' frame; false when dropped (closed, or the camera stopped reading). */
  sendFrame(channel: number, payload: Buffer): boolean {
    if (this.isClosed || payload.length > 0xffff || this.socket.writableLength > MAX_QUEUED_WRITE_BYTES) return false;
    const frame = Buffer.allocUnsafe(4 + payload.length);
    frame[0] = 0x24;
    frame[1] = channel;
    frame.writeUInt16BE(payload.length, 2);
    payload.copy(frame, 4);
    this.socket.write(frame);
    return true;
  }

  /** Ends the connection once: rejects pending requests, destroys the socket, then calls onClose(err). */
  close(err?: Error): void {
    if (this.isClosed) return;
    this.isClosed = true;
    this.streaming = false;
    this.reader.stop();
    this.opts.scheduler.forget(this);
    for (const p of this.pending.values()) {
      clearTimeout(p.timer);
      p.reject(err ?? new RtspClosedError('the RTSP connection was closed'));
    }
    this.pending.clear();
    this.socket.destroy();
    // Deferred so that a close() from inside onRtp/onRtcp does not re-enter the caller.
    process.nextTick(() => this.opts.onClose(err));
  }

  // ScheduledReader
  onRead(buffer: Buffer, length: number): boolean {
    if (this.isClosed) return false;
    try {
      this.reader.push(buffer, length);
    } catch (err) {
      // A protocol error, or an exception thrown by an onRtp/onRtcp handler: either ends the session.
      this.close(asError(err));
      return false;
    }
    return this.streaming && !this.isClosed;
  }

  resume(): void {
    if (!this.isClosed) this.socket.resume();
  }

  idle(): boolean {
    return this.opts.idle?.() ?? false;
  }

  // InterleavedSink
  frame(channel: number, buffer: Buffer, start: number, end: number): void {
    this.opts.onFrame(channel, buffer, start, end);
  }

  message(message: RtspMessage): void {
    if (message.kind === 'request') {
      this.answerServerRequest(message.method, message.headers.get('cseq'));
      return;
    }
    const cseqText = message.headers.get('cseq');
    let cseq = cseqText === undefined ? NaN : Number(cseqText);
    // A camera that omits CSeq: with one request outstanding the answer can only be to that one.
    if (Number.isNaN(cseq) && this.pending.size === 1) cseq = this.pending.keys().next().value as number;
    const p = this.pending.get(cseq);
    if (p === undefined) {
      this.opts.log?.debug?.({ status: message.status, cseq: cseqText }, 'rtsp response to no pending request, ignored');
      return;
    }
    this.pending.delete(cseq);
    clearTimeout(p.timer);
    this.opts.log?.debug?.({ method: p.method, status: message.status, cseq }, 'rtsp response');
    p.resolve(message);
  }

  private answerServerRequest(method: string, cseq: string | undefined): void {
    this.opts.log?.debug?.({ method }, 'rtsp request from the camera');
    const ok = method === 'OPTIONS' || method === 'GET_PARAMETER';
    this.socket.write(ok ? serializeResponse(200, 'OK', cseq) : serializeResponse(501, 'Not Implemented', cseq));
  }
}
