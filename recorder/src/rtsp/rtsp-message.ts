// RTSP messages: serialising requests, and the bounded incremental parser for responses and server requests.
import { RtspProtocolError } from './rtsp-errors.js';

/** Longest header block accepted; a camera streaming an endless header line must not grow memory. */
export const MAX_HEADER_BYTES = 64 * 1024;
/** Largest body accepted (SDP bodies are a few KiB). */
export const MAX_BODY_BYTES = 64 * 1024;

const LF = 0x0a;
const CR = 0x0d;
const INITIAL_HEAD_BYTES = 2048;

/** Header fields by lower-cased name; a name may repeat (WWW-Authenticate does). */
export class RtspHeaders {
  private readonly fields = new Map<string, string[]>();

  add(name: string, value: string): void {
    const key = name.toLowerCase();
    const list = this.fields.get(key);
    if (list === undefined) this.fields.set(key, [value]);
    else list.push(value);
  }

  get(name: string): string | undefined {
    return this.fields.get(name.toLowerCase())?.[0];
  }

  getAll(name: string): readonly string[] {
    return this.fields.get(name.toLowerCase()) ?? [];
  }

  /** Every field as [lower-cased name, value], repeated names once per value, in the order first seen. */
  *entries(): IterableIterator<[string, string]> {
    for (const [name, values] of this.fields) for (const value of values) yield [name, value];
  }
}

export interface RtspResponse {
  readonly kind: 'response';
  readonly status: number;
  readonly reason: string;
  readonly headers: RtspHeaders;
  readonly body: Buffer;
}

/** A request the camera sends us (some send OPTIONS or GET_PARAMETER as their own keep-alive). */
export interface RtspServerRequest {
  readonly kind: 'request';
  readonly method: string;
  readonly uri: string;
  readonly headers: RtspHeaders;
  readonly body: Buffer;
}

export type RtspMessage = RtspResponse | RtspServerRequest;

export interface RtspRequest {
  readonly method: string;
  readonly uri: string;
  /** Header name → value; undefined values are left out. */
  readonly headers: Readonly<Record<string, string | undefined>>;
  readonly body?: Buffer;
}

function checkToken(what: string, value: string): void {
  // A CR or LF from a URL or a camera-supplied value would let it inject header lines.
  if (/[\r\n]/.test(value)) throw new RtspProtocolError(`refusing to send an RTSP ${what} containing a line break`);
}

/** The request's bytes; CSeq and the other headers come from the caller. */
export function serializeRequest(req: RtspRequest): Buffer {
  checkToken('method', req.method);
  checkToken('URI', req.uri);
  if (/\s/.test(req.method) || /\s/.test(req.uri)) throw new RtspProtocolError('refusing to send an RTSP request line containing spaces');
  let head = `${req.method} ${req.uri} RTSP/1.0\r\n`;
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    checkToken('header', name);
    checkToken('header', value);
    head += `${name}: ${value}\r\n`;
  }
  const body = req.body;
  if (body !== undefined && body.length > 0) head += `Content-Length: ${body.length}\r\n`;
  head += '\r\n';
  const headBuf = Buffer.from(head, 'utf8');
  return body !== undefined && body.length > 0 ? Buffer.concat([headBuf, body]) : headBuf;
}

/** A response to a request the camera sent us, echoing its CSeq. */
export function serializeResponse(status: number, reason: string, cseq: string | undefined, extra: Record<string, string> = {}): Buffer {
  let head = `RTSP/1.0 ${status} ${reason}\r\n`;
  if (cseq !== undefined) {
    checkToken('header', cseq);
    head += `CSeq: ${cseq}\r\n`;
  }
  for (const [name, value] of Object.entries(extra)) head += `${name}: ${value}\r\n`;
  return Buffer.from(`${head}\r\n`, 'utf8');
}

/** A whole response (a relay passing on what a camera said): status line, the given header fields, the body. */
export function serializeFullResponse(status: number, reason: string, headers: Iterable<readonly [string, string]>, body: Buffer): Buffer {
  checkToken('reason', reason);
  let head = `RTSP/1.0 ${status} ${reason}\r\n`;
  for (const [name, value] of headers) {
    checkToken('header', name);
    checkToken('header', value);
    head += `${name}: ${value}\r\n`;
  }
  if (body.length > 0) head += `Content-Length: ${body.length}\r\n`;
  const headBuf = Buffer.from(`${head}\r\n`, 'utf8');
  return body.length > 0 ? Buffer.concat([headBuf, body]) : headBuf;
}

function parseHead(text: string): { start: string; headers: RtspHeaders } {
  const lines = text.split(/\r?\n/);
  const start = lines[0] ?? '';
  const headers = new RtspHeaders();
  let name: string | undefined;
  let value = '';
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i] ?? '';
    if (line === '') continue;
    if ((line.startsWith(' ') || line.startsWith('\t')) && name !== undefined) {
      // Obsolete header folding: a continuation of the previous field.
      value += ` ${line.trim()}`;
      continue;
    }
    if (name !== undefined) headers.add(name, value);
    const colon = line.indexOf(':');
    if (colon <= 0) throw new RtspProtocolError('an RTSP header line without a name');
    name = line.slice(0, colon).trim();
    value = line.slice(colon + 1).trim();
  }
  if (name !== undefined) headers.add(name, value);
  return { start, headers };
}

function buildMessage(start: string, headers: RtspHeaders, body: Buffer): RtspMessage {
  if (start.startsWith('RTSP/')) {
    const m = /^RTSP\/\d\.\d +(\d{3})(?: +(.*))?$/.exec(start);
    if (m === null) throw new RtspProtocolError('an unparseable RTSP status line');
    return { kind: 'response', status: Number(m[1]), reason: m[2] ?? '', headers, body };
  }
  const m = /^([A-Z_][A-Z0-9_-]*) +(\S+) +RTSP\/\d\.\d$/.exec(start);
  if (m === null) throw new RtspProtocolError('an unparseable RTSP request line');
  return { kind: 'request', method: m[1] ?? '', uri: m[2] ?? '', headers, body };
}

/**
 * Parses one message at a time from arbitrary slices of the byte stream. Copies only the message's own bytes
 * (header and body) into its private, bounded buffers, so a message split at any byte boundary reassembles.
 */
export class RtspMessageParser {
  private head = Buffer.allocUnsafe(0);
  private headLen = 0;
  private start = '';
  private headers: RtspHeaders | undefined;
  private body: Buffer | undefined;
  private bodyHave = 0;

  /** Whether a message has started and not yet completed. */
  get busy(): boolean {
    return this.headLen > 0 || this.headers !== undefined;
  }

  /**
   * Consumes bytes of `chunk` from `off` on; returns the offset after what it consumed and, when a message
   * completed, the message. Throws RtspProtocolError on a malformed or oversized message.
   */
  feed(chunk: Buffer, off: number): { next: number; message: RtspMessage | undefined } {
    if (this.headers === undefined) {
      const end = this.findHeadEnd(chunk, off);
      if (end < 0) return { next: chunk.length, message: undefined };
      off = end;
      const parsed = parseHead(this.head.toString('utf8', 0, this.headLen));
      this.headLen = 0;
      const length = parseContentLength(parsed.headers.get('content-length'));
      if (length === 0) return { next: off, message: buildMessage(parsed.start, parsed.headers, Buffer.alloc(0)) };
      this.start = parsed.start;
      this.headers = parsed.headers;
      this.body = Buffer.allocUnsafe(length);
      this.bodyHave = 0;
    }
    const body = this.body as Buffer;
    const take = Math.min(body.length - this.bodyHave, chunk.length - off);
    chunk.copy(body, this.bodyHave, off, off + take);
    this.bodyHave += take;
    off += take;
    if (this.bodyHave < body.length) return { next: off, message: undefined };
    const message = buildMessage(this.start, this.headers, body);
    this.headers = undefined;
    this.body = undefined;
    return { next: off, message };
  }

  /** Appends header bytes up to the blank line; returns the chunk offset after it, or -1 if not there yet. */
  private findHeadEnd(chunk: Buffer, off: number): number {
    const limit = Math.min(chunk.length, off + (MAX_HEADER_BYTES - this.headLen));
    // The byte at virtual index v of (head bytes so far + this chunk from off).
    const at = (v: number): number | undefined => (v < this.headLen ? this.head[v] : chunk[off + v - this.headLen]);
    let p = off;
    while (true) {
      const nl = chunk.indexOf(LF, p);
      if (nl < 0 || nl >= limit) {
        this.append(chunk, off, limit);
        if (this.headLen >= MAX_HEADER_BYTES) throw new RtspProtocolError(`an RTSP header longer than ${MAX_HEADER_BYTES} bytes`);
        return -1;
      }
      let q = this.headLen + (nl - off) - 1;
      if (q >= 0 && at(q) === CR) q--;
      if (q >= 0 && at(q) === LF) {
        this.append(chunk, off, nl + 1);
        return nl + 1;
      }
      p = nl + 1;
    }
  }

  private append(chunk: Buffer, from: number, to: number): void {
    const need = this.headLen + (to - from);
    if (need > this.head.length) {
      const grown = Buffer.allocUnsafe(Math.min(MAX_HEADER_BYTES, Math.max(need, INITIAL_HEAD_BYTES, this.head.length * 2)));
      this.head.copy(grown, 0, 0, this.headLen);
      this.head = grown;
    }
    chunk.copy(this.head, this.headLen, from, to);
    this.headLen = need;
  }
}

function parseContentLength(value: string | undefined): number {
  if (value === undefined) return 0;
  if (!/^\d+$/.test(value)) throw new RtspProtocolError('an unparseable Content-Length');
  const length = value.length > 9 ? Infinity : Number(value);
  if (length > MAX_BODY_BYTES) throw new RtspProtocolError(`an RTSP body larger than ${MAX_BODY_BYTES} bytes`);
  return length;
}
