// Test support: a small RTSP camera that misbehaves on purpose in one chosen way (what the recorder must survive).
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type Server, type Socket } from 'node:net';
import { H264RtpSource } from './h264-rtp-packets.js';

/**
 * - `valid`: a well-behaved camera (H.264 over interleaved TCP; UDP refused with 461).
 * - `huge-content-length`: answers DESCRIBE with `Content-Length: 2000000000`, then trickles bytes.
 * - `endless-headers`: answers DESCRIBE with a status line and header lines that never end.
 * - `absurd-frames`: plays, then sends nothing but 65535-byte interleaved frames of noise (RTP-looking, unfinished
 *   FU-A fragments) as fast as the client reads.
 * - `foreign-ssrc`: a valid stream with RTP packets from another SSRC (noise) mixed into it.
 * - `garbage-after`: a valid stream for `validSeconds`, then bytes that are not RTSP at all.
 * - `udp-silent`: accepts a UDP SETUP and PLAY but never sends a datagram (a firewall in between); TCP works.
 * - `bye-after`: a valid stream for `validSeconds`, then an RTCP BYE, then nothing (the connection stays open), as a
 *   camera whose stream ended.
 */
export type HostileMode = 'valid' | 'huge-content-length' | 'endless-headers' | 'absurd-frames' | 'foreign-ssrc' | 'garbage-after' | 'udp-silent' | 'bye-after';

export interface HostileRtspCameraOptions {
  mode: HostileMode;
  /** An Annex-B H.264 file (encodeLoopFile) played in a loop. */
  file: string;
  fps?: number;
  /** `garbage-after`, `bye-after`: seconds of valid stream before the garbage or the BYE (default 3). */
  validSeconds?: number;
}

export interface HostileRtspCamera {
  readonly url: string;
  readonly port: number;
  /** Connections accepted so far (each reconnect of the recorder is one). */
  readonly connections: number;
  /** `bye-after`: when each session's BYE was sent (Date.now()), in order. */
  readonly byesSentAt: readonly number[];
  stop(): Promise<void>;
}

const SDP = ['v=0', 'o=- 1 1 IN IP4 127.0.0.1', 's=hostile', 'c=IN IP4 0.0.0.0', 't=0 0', 'a=control:*', 'm=video 0 RTP/AVP 96', 'a=rtpmap:96 H264/90000', 'a=fmtp:96 packetization-mode=1', 'a=control:track1', ''].join('\r\n');

function frame(channel: number, payload: Buffer): Buffer {
  const head = Buffer.from([0x24, channel, payload.length >> 8, payload.length & 0xff]);
  return Buffer.concat([head, payload]);
}

class Session {
  private pending = Buffer.alloc(0);
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  private udp = false;

  constructor(
    private readonly socket: Socket,
    private readonly opts: Required<HostileRtspCameraOptions>,
    private readonly source: H264RtpSource,
    private readonly byeSent: (at: number) => void,
  ) {
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('error', () => this.close());
    socket.on('close', () => this.close());
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.timer);
    this.socket.destroy();
  }

  private onData(chunk: Buffer): void {
    this.pending = Buffer.concat([this.pending, chunk]);
    for (;;) {
      if (this.pending[0] === 0x24) {
        // The client's interleaved RTCP (receiver reports): skipped.
        if (this.pending.length < 4) return;
        const length = 4 + this.pending.readUInt16BE(2);
        if (this.pending.length < length) return;
        this.pending = this.pending.subarray(length);
        continue;
      }
      const end = this.pending.indexOf('\r\n\r\n');
      if (end < 0) return;
      const head = this.pending.toString('latin1', 0, end);
      this.pending = this.pending.subarray(end + 4);
      const start = head.search(/[A-Z]/);
      if (start >= 0) this.request(head.slice(start));
    }
  }

  private answer(cseq: string, status: string, headers: string[] = [], body = ''): void {
    const lines = [`RTSP/1.0 ${status}`, `CSeq: ${cseq}`, 'Server: hostile-test-camera', ...headers];
    if (body !== '') lines.push(`Content-Length: ${Buffer.byteLength(body)}`);
    this.socket.write(`${lines.join('\r\n')}\r\n\r\n${body}`);
  }

  private request(head: string): void {
    const [line = '', ...rest] = head.split('\r\n');
    const method = line.split(' ')[0] ?? '';
    const header = (name: string): string => rest.find((h) => h.toLowerCase().startsWith(`${name}:`))?.slice(name.length + 1).trim() ?? '';
    const cseq = header('cseq');
    const mode = this.opts.mode;
    if (method === 'OPTIONS' || method === 'GET_PARAMETER') return this.answer(cseq, '200 OK', ['Public: OPTIONS, DESCRIBE, SETUP, PLAY, TEARDOWN, GET_PARAMETER']);
    if (method === 'TEARDOWN') return this.answer(cseq, '200 OK');
    if (method === 'DESCRIBE') {
      if (mode === 'huge-content-length') return this.trickle(`RTSP/1.0 200 OK\r\nCSeq: ${cseq}\r\nContent-Type: application/sdp\r\nContent-Length: 2000000000\r\n\r\nv=0\r\n`, () => Buffer.from('a=x\r\n'));
      if (mode === 'endless-headers') return this.trickle(`RTSP/1.0 200 OK\r\nCSeq: ${cseq}\r\n`, () => Buffer.from(`X-Padding-${randomBytes(4).toString('hex')}: ${'y'.repeat(1000)}\r\n`));
      return this.answer(cseq, '200 OK', ['Content-Type: application/sdp', `Content-Base: rtsp://127.0.0.1:${this.socket.localPort ?? 0}/cam/`], SDP);
    }
    if (method === 'SETUP') {
      const transport = header('transport');
      if (/TCP/i.test(transport)) return this.answer(cseq, '200 OK', ['Session: 4711;timeout=60', 'Transport: RTP/AVP/TCP;unicast;interleaved=0-1']);
      if (mode !== 'udp-silent') return this.answer(cseq, '461 Unsupported Transport');
      this.udp = true;
      return this.answer(cseq, '200 OK', ['Session: 4711;timeout=60', `Transport: ${transport};server_port=40000-40001`]);
    }
    if (method === 'PLAY') {
      this.answer(cseq, '200 OK', ['Session: 4711', 'Range: npt=0.000-']);
      if (this.udp) return;
      this.play();
      return;
    }
    this.answer(cseq, '501 Not Implemented');
  }

  /** Writes `first`, then `more()` whenever the socket drains, until the client gives up. */
  private trickle(first: string, more: () => Buffer): void {
    const pump = (): void => {
      while (!this.closed && this.socket.write(more())) {
        // keep writing until the socket buffer is full
      }
      if (!this.closed) this.socket.once('drain', pump);
    };
    this.socket.write(first);
    pump();
  }

  private play(): void {
    const { mode, fps, validSeconds } = this.opts;
    if (mode === 'absurd-frames') {
      const noise = (): Buffer => {
        const p = randomBytes(0xffff);
        // RTP v2, PT 96, an FU-A start or middle that is never finished.
        p[0] = 0x80;
        p[1] = 96;
        p[12] = 0x7c;
        p[13] = 0x05;
        return frame(0, p);
      };
      return this.trickle('', noise);
    }
    const started = Date.now();
    this.timer = setInterval(() => {
      if (mode === 'bye-after' && Date.now() - started > validSeconds * 1000) {
        clearInterval(this.timer);
        // RTCP BYE (RFC 3550 6.6) from the stream's source, on the RTCP channel; then silence. As RFC 3550 6.1 asks,
        // a compound packet that starts with a report (ffmpeg drops a lone 8-byte BYE as too short for RTP or RTCP).
        this.socket.write(frame(1, byeCompound(this.source.ssrc)));
        this.byeSent(Date.now());
        return;
      }
      if (mode === 'garbage-after' && Date.now() - started > validSeconds * 1000) {
        clearInterval(this.timer);
        this.trickle('', () => {
          const noise = randomBytes(4096);
          // Never a '$' first: that would read as an interleaved frame, not as the garbage it is.
          if (noise[0] === 0x24) noise[0] = 0x23;
          return noise;
        });
        return;
      }
      const picture = this.source.next();
      for (const packet of picture.packets) {
        this.socket.write(frame(0, packet));
        if (mode === 'foreign-ssrc') {
          const stranger = Buffer.concat([packet.subarray(0, 12), randomBytes(200)]);
          stranger.writeUInt32BE(0xbad55c, 8);
          this.socket.write(frame(0, stranger));
        }
      }
    }, 1000 / fps);
  }
}

/** A sender report (no report blocks), an SDES with its CNAME and a BYE: what a camera sends when its stream ends. */
function byeCompound(ssrc: number): Buffer {
  const report = Buffer.alloc(28);
  report[0] = 0x80;
  report[1] = 200;
  report.writeUInt16BE(6, 2);
  report.writeUInt32BE(ssrc >>> 0, 4);
  const cname = Buffer.from('hostile@127.0.0.1');
  // SDES: one chunk (SSRC, CNAME item, end of list), padded to 32 bits.
  const sdesBody = 4 + 2 + cname.length + 1;
  const sdes = Buffer.alloc(4 + Math.ceil(sdesBody / 4) * 4);
  sdes[0] = 0x81;
  sdes[1] = 202;
  sdes.writeUInt16BE(sdes.length / 4 - 1, 2);
  sdes.writeUInt32BE(ssrc >>> 0, 4);
  sdes[8] = 1;
  sdes[9] = cname.length;
  cname.copy(sdes, 10);
  const bye = Buffer.alloc(8);
  bye[0] = 0x81;
  bye[1] = 203;
  bye.writeUInt16BE(1, 2);
  bye.writeUInt32BE(ssrc >>> 0, 4);
  return Buffer.concat([report, sdes, bye]);
}

/** Starts the camera on 127.0.0.1 (port 0); its stream is `rtsp://127.0.0.1:PORT/cam`. */
export async function startHostileRtspCamera(options: HostileRtspCameraOptions): Promise<HostileRtspCamera> {
  const opts: Required<HostileRtspCameraOptions> = { fps: 25, validSeconds: 3, ...options };
  const source = await H264RtpSource.fromFile(opts.file, opts.fps);
  const sessions = new Set<Session>();
  let connections = 0;
  const byesSentAt: number[] = [];
  const server: Server = createServer((socket) => {
    connections++;
    const session = new Session(socket, opts, source.fork(), (at) => byesSentAt.push(at));
    sessions.add(session);
    socket.on('close', () => sessions.delete(session));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('hostile camera: no TCP address');
  return {
    url: `rtsp://127.0.0.1:${address.port}/cam`,
    port: address.port,
    get connections() {
      return connections;
    },
    byesSentAt,
    stop: async () => {
      for (const s of sessions) s.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
