// The server side of a SPDY/3.1 connection as Go's spdystream (kubectl, kube-apiserver) speaks it after an HTTP upgrade:
// frames, zlib-compressed header blocks with the SPDY dictionary, streams the client opens (SYN_STREAM, answered with
// SYN_REPLY), DATA with FIN, RST_STREAM, PING and GOAWAY. spdystream does no flow control, so none is done here.
import { EventEmitter } from 'node:events';
import type { Duplex as DuplexSocket } from 'node:stream';
import { Duplex } from 'node:stream';
import { constants, createDeflate, createInflate, type Deflate, type Inflate } from 'node:zlib';
import { SPDY3_HEADER_DICTIONARY } from './spdy-dictionary.js';

const VERSION = 3;
const FLAG_FIN = 0x01;
const TYPE = { SYN_STREAM: 1, SYN_REPLY: 2, RST_STREAM: 3, SETTINGS: 4, PING: 6, GOAWAY: 7, HEADERS: 8, WINDOW_UPDATE: 9 } as const;
/** RST_STREAM status CANCEL. */
const CANCEL = 5;
const MAX_DATA = 16 * 1024;

/** Feeds `input` through a persistent zlib stream and returns what one Z_SYNC_FLUSH gives (header blocks share one context). */
function pump(z: Inflate | Deflate, input: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const out: Buffer[] = [];
    const onData = (chunk: Buffer): void => {
      out.push(chunk);
    };
    const onError = (err: Error): void => {
      z.off('data', onData);
      reject(err);
    };
    z.on('data', onData);
    z.once('error', onError);
    z.write(input);
    z.flush(constants.Z_SYNC_FLUSH, () => {
      z.off('data', onData);
      z.off('error', onError);
      resolve(Buffer.concat(out));
    });
  });
}

function parseHeaderBlock(block: Buffer): Record<string, string> {
  const headers: Record<string, string> = {};
  let at = 4;
  const count = block.readUInt32BE(0);
  for (let i = 0; i < count; i++) {
    const nameLength = block.readUInt32BE(at);
    const name = block.subarray(at + 4, at + 4 + nameLength).toString('utf8').toLowerCase();
    at += 4 + nameLength;
    const valueLength = block.readUInt32BE(at);
    // Several values of one name are separated by NUL; the first one is what port-forward reads.
    headers[name] = block.subarray(at + 4, at + 4 + valueLength).toString('utf8').split('\0')[0] ?? '';
    at += 4 + valueLength;
  }
  return headers;
}

function headerBlock(headers: Record<string, string>): Buffer {
  const parts: Buffer[] = [Buffer.alloc(4)];
  parts[0]?.writeUInt32BE(Object.keys(headers).length);
  for (const [name, value] of Object.entries(headers)) {
    for (const text of [name.toLowerCase(), value]) {
      const bytes = Buffer.from(text, 'utf8');
      const length = Buffer.alloc(4);
      length.writeUInt32BE(bytes.length);
      parts.push(length, bytes);
    }
  }
  return Buffer.concat(parts);
}

function controlFrame(type: number, flags: number, body: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt16BE(0x8000 | VERSION, 0);
  head.writeUInt16BE(type, 2);
  head.writeUInt32BE(((flags & 0xff) << 24) | body.length, 4);
  return Buffer.concat([head, body]);
}

function dataFrame(streamId: number, flags: number, payload: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(streamId & 0x7fffffff, 0);
  head.writeUInt32BE(((flags & 0xff) << 24) | payload.length, 4);
  return Buffer.concat([head, payload]);
}

/** A stream the client opened: bytes in (its DATA) and out (ours); end() sends FIN, reset() RST_STREAM. */
export class SpdyStream extends Duplex {
  constructor(readonly id: number, readonly headers: Readonly<Record<string, string>>, private readonly session: SpdySession) {
    super({ allowHalfOpen: true });
  }

  override _read(): void {
    // Data is pushed as frames arrive (no flow control).
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    for (let at = 0; at < chunk.length; at += MAX_DATA) this.session.send(dataFrame(this.id, 0, chunk.subarray(at, at + MAX_DATA)));
    callback();
  }

  override _final(callback: (error?: Error | null) => void): void {
    this.session.send(dataFrame(this.id, FLAG_FIN, Buffer.alloc(0)));
    callback();
  }

  /** Ends the stream both ways at once (RST_STREAM CANCEL). */
  reset(): void {
    const body = Buffer.alloc(8);
    body.writeUInt32BE(this.id & 0x7fffffff, 0);
    body.writeUInt32BE(CANCEL, 4);
    this.session.send(controlFrame(TYPE.RST_STREAM, 0, body));
    this.session.forget(this.id);
    this.destroy();
  }
}

/** Emits 'stream' (SpdyStream) for each stream the client opens, after its SYN_REPLY was sent; 'close' when the connection ends. */
export class SpdySession extends EventEmitter {
  private readonly streams = new Map<number, SpdyStream>();
  private readonly inflater = createInflate({ dictionary: SPDY3_HEADER_DICTIONARY });
  private readonly deflater = createDeflate({ dictionary: SPDY3_HEADER_DICTIONARY });
  private pending = Buffer.alloc(0);
  /** Frames are handled one after another: header blocks share one zlib context each way. */
  private queue: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(private readonly socket: DuplexSocket, head: Buffer) {
    super();
    socket.on('data', (chunk: Buffer) => this.receive(chunk));
    socket.on('close', () => this.close());
    socket.on('error', () => this.close());
    if (head.length > 0) this.receive(head);
  }

  send(frame: Buffer): void {
    if (!this.closed) this.socket.write(frame);
  }

  forget(id: number): void {
    this.streams.delete(id);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const s of this.streams.values()) s.destroy();
    this.streams.clear();
    this.inflater.close();
    this.deflater.close();
    this.socket.destroy();
    this.emit('close');
  }

  private receive(chunk: Buffer): void {
    this.pending = Buffer.concat([this.pending, chunk]);
    while (this.pending.length >= 8) {
      const length = this.pending.readUInt32BE(4) & 0xffffff;
      if (this.pending.length < 8 + length) return;
      const frame = this.pending.subarray(0, 8 + length);
      this.pending = this.pending.subarray(8 + length);
      this.queue = this.queue.then(() => this.handle(frame)).catch(() => this.close());
    }
  }

  private async handle(frame: Buffer): Promise<void> {
    if (this.closed) return;
    const flags = frame.readUInt8(4);
    const body = frame.subarray(8);
    if ((frame.readUInt8(0) & 0x80) === 0) {
      const stream = this.streams.get(frame.readUInt32BE(0) & 0x7fffffff);
      if (stream === undefined) return;
      if (body.length > 0) stream.push(Buffer.from(body));
      if ((flags & FLAG_FIN) !== 0) stream.push(null);
      return;
    }
    const type = frame.readUInt16BE(2);
    if (type === TYPE.SYN_STREAM) {
      const id = body.readUInt32BE(0) & 0x7fffffff;
      const headers = parseHeaderBlock(await pump(this.inflater, body.subarray(10)));
      const reply = Buffer.concat([Buffer.from([(id >>> 24) & 0x7f, (id >>> 16) & 0xff, (id >>> 8) & 0xff, id & 0xff]), await pump(this.deflater, headerBlock({}))]);
      this.send(controlFrame(TYPE.SYN_REPLY, 0, reply));
      const stream = new SpdyStream(id, headers, this);
      this.streams.set(id, stream);
      if ((flags & FLAG_FIN) !== 0) stream.push(null);
      this.emit('stream', stream);
    } else if (type === TYPE.HEADERS || type === TYPE.SYN_REPLY) {
      // Keeps the shared zlib context in step; nothing in them matters here.
      await pump(this.inflater, body.subarray(4));
    } else if (type === TYPE.RST_STREAM) {
      const id = body.readUInt32BE(0) & 0x7fffffff;
      this.streams.get(id)?.destroy();
      this.streams.delete(id);
    } else if (type === TYPE.PING) {
      this.send(controlFrame(TYPE.PING, 0, Buffer.from(body)));
    } else if (type === TYPE.GOAWAY) {
      this.close();
    }
    // SETTINGS and WINDOW_UPDATE: nothing to do without flow control.
  }
}
