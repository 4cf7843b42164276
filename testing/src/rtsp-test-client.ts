// Test support: a minimal RTSP client for checking what a server answers (status, headers, body), one request at a time.
import { once } from 'node:events';
import { connect, type Socket } from 'node:net';

export interface RtspTestResponse {
  status: number;
  reason: string;
  /** Header values by lower-cased name (the last one when a name repeats). */
  headers: Record<string, string>;
  body: string;
}

/**
 * Talks RTSP to a server under test without any of the recorder's code: a check of a fixture must not depend on the
 * client it is meant to check. Interleaved frames between answers are skipped.
 */
export class RtspTestClient {
  private buffer = Buffer.alloc(0);
  private cseq = 0;
  private waiter: (() => void) | undefined;
  private ended = false;

  private constructor(private readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.buffer = Buffer.concat([this.buffer, chunk]);
      this.waiter?.();
    });
    socket.on('close', () => {
      this.ended = true;
      this.waiter?.();
    });
    socket.on('error', () => undefined);
  }

  static async connect(port: number, host = '127.0.0.1'): Promise<RtspTestClient> {
    const socket = connect({ port, host });
    await once(socket, 'connect');
    return new RtspTestClient(socket);
  }

  /** Sends one request and waits for its answer (at most `timeoutMs`). */
  async request(method: string, uri: string, headers: Record<string, string> = {}, timeoutMs = 5_000): Promise<RtspTestResponse> {
    let head = `${method} ${uri} RTSP/1.0\r\nCSeq: ${++this.cseq}\r\nUser-Agent: vigil-test\r\n`;
    for (const [name, value] of Object.entries(headers)) head += `${name}: ${value}\r\n`;
    this.socket.write(`${head}\r\n`);
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const response = this.take();
      if (response !== undefined) return response;
      if (this.ended) throw new Error(`${method} ${uri}: the server closed the connection`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`${method} ${uri}: no answer within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiter = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.waiter = undefined;
    }
  }

  close(): void {
    this.socket.destroy();
  }

  /** The next whole response in the buffer, skipping '$' frames; undefined when it has not all arrived. */
  private take(): RtspTestResponse | undefined {
    while (this.buffer.length >= 4 && this.buffer[0] === 0x24) {
      const length = 4 + this.buffer.readUInt16BE(2);
      if (this.buffer.length < length) return undefined;
      this.buffer = this.buffer.subarray(length);
    }
    const end = this.buffer.indexOf('\r\n\r\n');
    if (end < 0) return undefined;
    const lines = this.buffer.toString('latin1', 0, end).split('\r\n');
    const headers: Record<string, string> = {};
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(':');
      if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    const length = Number(headers['content-length'] ?? 0);
    if (this.buffer.length < end + 4 + length) return undefined;
    const body = this.buffer.toString('utf8', end + 4, end + 4 + length);
    this.buffer = this.buffer.subarray(end + 4 + length);
    const m = /^RTSP\/\d\.\d (\d{3}) ?(.*)$/.exec(lines[0] ?? '');
    if (m === null) throw new Error(`not an RTSP status line: ${lines[0] ?? ''}`);
    return { status: Number(m[1]), reason: m[2] ?? '', headers, body };
  }
}

/** DESCRIBE `url` on a fresh connection; the answer, or undefined when nothing answers (not listening yet). */
export async function describeOnce(port: number, url: string, timeoutMs = 2_000): Promise<RtspTestResponse | undefined> {
  let client: RtspTestClient | undefined;
  try {
    client = await RtspTestClient.connect(port);
    return await client.request('DESCRIBE', url, { Accept: 'application/sdp' }, timeoutMs);
  } catch {
    return undefined;
  } finally {
    client?.close();
  }
}
