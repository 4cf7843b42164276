// Test support for the RTSP client: a request-counting TCP/TLS proxy and a scripted fake RTSP server.
import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { createServer as createTlsServer } from 'node:tls';
import { promisify } from 'node:util';

export interface SeenRequest {
  readonly method: string;
  readonly uri: string;
  readonly headers: Map<string, string>;
}

export interface SeenFrame {
  readonly channel: number;
  readonly payload: Buffer;
}

/** Parses whole request heads (the client sends no bodies here) and '$' frames out of a client's byte stream. */
function requestScanner(onRequest: (req: SeenRequest) => void, onFrame: (f: SeenFrame) => void = () => undefined): (chunk: Buffer) => void {
  let text = '';
  return (chunk) => {
    text += chunk.toString('latin1');
    while (true) {
      // Interleaved RTCP from the client: skip whole frames.
      if (text.startsWith('$')) {
        if (text.length < 4) return;
        const len = (text.charCodeAt(2) << 8) | text.charCodeAt(3);
        if (text.length < 4 + len) return;
        onFrame({ channel: text.charCodeAt(1), payload: Buffer.from(text.slice(4, 4 + len), 'latin1') });
        text = text.slice(4 + len);
        continue;
      }
      const end = text.indexOf('\r\n\r\n');
      if (end < 0) return;
      const [start = '', ...lines] = text.slice(0, end).split('\r\n');
      text = text.slice(end + 4);
      const [method = '', uri = ''] = start.split(' ');
      const headers = new Map<string, string>();
      for (const line of lines) {
        const colon = line.indexOf(':');
        if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
      }
      onRequest({ method, uri, headers });
    }
  };
}

async function listen(server: Server): Promise<number> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  return address.port;
}

export interface Proxy {
  readonly port: number;
  readonly requests: SeenRequest[];
  /** Interleaved frames the client sent (RTCP receiver reports). */
  readonly frames: SeenFrame[];
  close(): Promise<void>;
}

/** A TCP (or, with key/cert, TLS-terminating) proxy to 127.0.0.1:targetPort that records every RTSP request. */
export async function startProxy(targetPort: number, tls?: { key: Buffer; cert: Buffer }): Promise<Proxy> {
  const requests: SeenRequest[] = [];
  const frames: SeenFrame[] = [];
  const sockets = new Set<Socket>();
  const onClient = (client: Socket): void => {
    const upstream = connect(targetPort, '127.0.0.1');
    sockets.add(client);
    sockets.add(upstream);
    const scan = requestScanner((req) => requests.push(req), (f) => frames.push(f));
    client.on('data', (chunk: Buffer) => {
      scan(chunk);
      upstream.write(chunk);
    });
    upstream.pipe(client);
    const end = (): void => {
      client.destroy();
      upstream.destroy();
    };
    for (const s of [client, upstream]) {
      s.on('error', end);
      s.on('close', () => {
        sockets.delete(s);
        end();
      });
    }
  };
  const server = tls === undefined ? createServer(onClient) : createTlsServer({ key: tls.key, cert: tls.cert }, onClient);
  const port = await listen(server);
  return {
    port,
    requests,
    frames,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A self-signed certificate for localhost, made with openssl in `dir`. */
export async function selfSignedCert(dir: string): Promise<{ key: Buffer; cert: Buffer }> {
  const key = join(dir, 'key.pem');
  const cert = join(dir, 'cert.pem');
  await promisify(execFile)('openssl', [
    'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=localhost', '-days', '1', '-keyout', key, '-out', cert,
  ]);
  return { key: await readFile(key), cert: await readFile(cert) };
}

/** What a scripted server does with one request: a response, raw bytes, or nothing (stay silent). */
export type FakeReply = { status: number; headers?: Record<string, string>; body?: string } | { raw: Buffer | string } | undefined;

export interface FakeServer {
  readonly port: number;
  readonly url: string;
  readonly requests: SeenRequest[];
  readonly frames: SeenFrame[];
  /** The connected clients, to push raw bytes (interleaved frames, server requests) at them. */
  readonly clients: Set<Socket>;
  close(): Promise<void>;
}

/** A minimal RTSP server whose answers come from `script`; CSeq is echoed automatically. */
export async function startFakeServer(script: (req: SeenRequest, client: Socket) => FakeReply): Promise<FakeServer> {
  const requests: SeenRequest[] = [];
  const frames: SeenFrame[] = [];
  const clients = new Set<Socket>();
  const server = createServer((client) => {
    clients.add(client);
    client.on('error', () => undefined);
    client.on('close', () => clients.delete(client));
    client.on('data', requestScanner((req) => {
      requests.push(req);
      const reply = script(req, client);
      if (reply === undefined || client.destroyed) return;
      if ('raw' in reply) {
        client.write(reply.raw);
        return;
      }
      const body = reply.body ?? '';
      let head = `RTSP/1.0 ${reply.status} ${reply.status === 200 ? 'OK' : 'Status'}\r\nCSeq: ${req.headers.get('cseq') ?? '0'}\r\n`;
      for (const [name, value] of Object.entries(reply.headers ?? {})) head += `${name}: ${value}\r\n`;
      if (body !== '') head += `Content-Length: ${Buffer.byteLength(body)}\r\n`;
      client.write(`${head}\r\n${body}`);
    }, (f) => frames.push(f)));
  });
  const port = await listen(server);
  return {
    port,
    url: `rtsp://127.0.0.1:${port}/cam`,
    requests,
    frames,
    clients,
    close: async () => {
      for (const c of clients) c.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** An SDP for a fake server: one H.264 video track with a relative control. */
export const FAKE_SDP = [
  'v=0', 'o=- 1 1 IN IP4 127.0.0.1', 's=fake', 't=0 0', 'a=control:*',
  'm=video 0 RTP/AVP 96', 'a=rtpmap:96 H264/90000', 'a=fmtp:96 packetization-mode=1', 'a=control:track1', '',
].join('\r\n');

/** Answers OPTIONS/DESCRIBE/SETUP/PLAY/TEARDOWN like a camera; `overrides` changes single methods. */
export function cameraScript(
  overrides: Record<string, (req: SeenRequest, client: Socket) => FakeReply> = {},
  sessionHeader = 'fake-1;timeout=60',
): (req: SeenRequest, client: Socket) => FakeReply {
  return (req, client) => {
    const override = overrides[req.method];
    if (override !== undefined) return override(req, client);
    switch (req.method) {
      case 'OPTIONS':
        return { status: 200, headers: { Public: 'OPTIONS, DESCRIBE, SETUP, PLAY, TEARDOWN, GET_PARAMETER' } };
      case 'DESCRIBE':
        return { status: 200, headers: { 'Content-Type': 'application/sdp', 'Content-Base': `${req.uri}/` }, body: FAKE_SDP };
      case 'SETUP':
        return { status: 200, headers: { Session: sessionHeader, Transport: req.headers.get('transport') ?? '' } };
      case 'PLAY':
        return { status: 200, headers: { Session: 'fake-1', 'RTP-Info': `url=${req.uri}track1;seq=100;rtptime=5000`, Range: 'npt=0.000-' } };
      default:
        return { status: 200, headers: { Session: 'fake-1' } };
    }
  };
}

/** One interleaved frame: '$', channel, 16-bit length, payload. */
export function frame(channel: number, payload: Buffer): Buffer {
  const head = Buffer.from([0x24, channel, payload.length >> 8, payload.length & 0xff]);
  return Buffer.concat([head, payload]);
}

/** A minimal RTP packet (version 2) with the given payload type and sequence number. */
export function rtpPacket(payloadType: number, seq: number, size = 100): Buffer {
  const p = Buffer.alloc(size);
  p[0] = 0x80;
  p[1] = payloadType & 0x7f;
  p.writeUInt16BE(seq & 0xffff, 2);
  return p;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Resolves once cond() holds, or rejects after timeoutMs. */
export async function until(cond: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}
