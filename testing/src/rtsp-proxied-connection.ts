// Test support: one connection of the cutting RTSP proxy: forwards both ways, follows the server's byte stream (RTSP messages and interleaved frames) and can freeze it in the middle of a video RTP packet.
import type { Socket } from 'node:net';
import { isFragmentStart, parseRtpmap, type VideoCodec } from './rtp-fragment-start.js';

export interface RtspCuttingProxyStats {
  /** Connections accepted so far. */
  connections: number;
  /** Connections currently open (client side). */
  open: number;
  /** Bytes read from the clients (all forwarded to the server). */
  clientToServerBytes: number;
  /** Bytes read from the server. */
  serverToClientBytes: number;
  /** Bytes of those written to the clients. */
  forwardedToClientBytes: number;
  /** Bytes of those not written (frozen connections). */
  droppedBytes: number;
  /** Interleaved ($) frames seen from the server, on any channel. */
  interleavedFrames: number;
  /** Of those: video RTP packets that start a fragmented NAL unit (H.264 FU-A or H.265 FU with the S bit). */
  fuStartFrames: number;
  /** Connections frozen by freezeMidPacket() so far. */
  frozen: number;
}

/** Payload bytes kept from every interleaved frame to decide whether it starts a fragmented NAL unit. */
const HEAD_BYTES = 96;
/** An RTSP message head longer than this means the byte stream is not understood any more. */
const MAX_TEXT_HEAD = 64 * 1024;
/** SDP bodies larger than this are forwarded but not read. */
const MAX_BODY_KEPT = 64 * 1024;

type Mode = 'forward' | 'armed' | 'frozen' | 'resync';
type Unit = 'boundary' | 'header' | 'payload' | 'text' | 'body' | 'lost';

export interface Counters {
  stats: RtspCuttingProxyStats;
}

export class ProxiedConnection {
  mode: Mode = 'forward';
  closed = false;
  private unit: Unit = 'boundary';
  // Interleaved frame being read.
  private readonly header = Buffer.alloc(4);
  private headerHave = 0;
  private channel = 0;
  private frameLength = 0;
  private payloadHave = 0;
  private readonly head = Buffer.alloc(HEAD_BYTES);
  private headHave = 0;
  private fragmentStart = false;
  // RTSP message being read.
  private text = '';
  private bodyLeft = 0;
  private body = '';
  private readonly payloadTypes = new Map<number, VideoCodec | 'other'>();
  // Freeze.
  private cutFrameOpen = false;
  private held: Buffer[] = [];
  private freezeWaiters: Array<(frozen: boolean) => void> = [];
  private serverPaused = false;

  constructor(
    readonly client: Socket,
    readonly server: Socket,
    private readonly counters: Counters,
  ) {
    client.on('data', (chunk: Buffer) => {
      counters.stats.clientToServerBytes += chunk.length;
      if (!server.destroyed && !server.write(chunk)) {
        client.pause();
        server.once('drain', () => client.resume());
      }
    });
    server.on('data', (chunk: Buffer) => this.onServerData(chunk));
    client.on('error', () => undefined);
    server.on('error', () => undefined);
    client.on('close', () => {
      this.closed = true;
      server.destroy();
      this.settleFreeze(false);
    });
    server.on('close', () => {
      // A frozen camera never says goodbye: the client keeps waiting on its open socket.
      if (this.mode === 'frozen') return;
      client.end();
      this.settleFreeze(false);
    });
  }

  /** Resolves true once frozen, false if the connection closed first or the freeze was cancelled. */
  arm(): Promise<boolean> {
    if (this.mode === 'frozen') return Promise.resolve(true);
    if (this.closed) return Promise.resolve(false);
    this.mode = 'armed';
    return new Promise((resolve) => this.freezeWaiters.push(resolve));
  }

  resume(): void {
    if (this.mode === 'armed') {
      this.mode = 'forward';
      this.settleFreeze(false);
      return;
    }
    if (this.mode !== 'frozen') return;
    const tail = Buffer.concat(this.held);
    this.held = [];
    if (tail.length > 0) this.writeToClient(tail);
    if (this.cutFrameOpen) {
      // The rest of the cut frame is what comes next.
      this.cutFrameOpen = false;
      this.mode = 'forward';
    } else {
      this.mode = this.unit === 'boundary' ? 'forward' : 'resync';
    }
    // The server went away while the connection was frozen: now the client may see it.
    if (this.server.destroyed) this.client.end();
  }

  destroy(): void {
    this.client.destroy();
    this.server.destroy();
  }

  private settleFreeze(frozen: boolean): void {
    const waiters = this.freezeWaiters;
    this.freezeWaiters = [];
    for (const resolve of waiters) resolve(frozen);
  }

  private writeToClient(data: Buffer, done?: () => void): void {
    if (this.client.destroyed) {
      done?.();
      return;
    }
    this.counters.stats.forwardedToClientBytes += data.length;
    const ok = this.client.write(data, () => done?.());
    if (!ok && !this.serverPaused) {
      this.serverPaused = true;
      this.server.pause();
      this.client.once('drain', () => {
        this.serverPaused = false;
        this.server.resume();
      });
    }
  }

  private onServerData(chunk: Buffer): void {
    const stats = this.counters.stats;
    stats.serverToClientBytes += chunk.length;
    const out: Buffer[] = [];
    let justFroze = false;
    let i = 0;
    while (i < chunk.length) {
      const before = this.mode;
      const n = this.step(chunk, i);
      const bytes = chunk.subarray(i, i + n);
      i += n;
      if (before === 'forward' || before === 'armed') {
        out.push(bytes);
        if (this.mode === 'frozen') justFroze = true;
      } else if (before === 'frozen' && this.cutFrameOpen) {
        this.held.push(Buffer.from(bytes));
        stats.droppedBytes += bytes.length;
      } else {
        stats.droppedBytes += bytes.length;
      }
      if (this.unit === 'boundary') {
        // A unit just ended (or none had started).
        if (before === 'frozen') this.cutFrameOpen = false;
        if (this.mode === 'resync') this.mode = 'forward';
      }
    }
    const data = out.length === 1 ? out[0] : Buffer.concat(out);
    if (justFroze) {
      stats.frozen += 1;
      this.writeToClient(data ?? Buffer.alloc(0), () => this.settleFreeze(true));
    } else if (data !== undefined && data.length > 0) {
      this.writeToClient(data);
    }
  }

  /** Consumes bytes of the current unit from chunk[i..]; returns how many (0 only on a unit change). */
  private step(chunk: Buffer, i: number): number {
    const left = chunk.length - i;
    switch (this.unit) {
      case 'boundary': {
        if (chunk[i] === 0x24) {
          this.unit = 'header';
          this.headerHave = 0;
        } else {
          this.unit = 'text';
          this.text = '';
        }
        return this.step(chunk, i);
      }
      case 'header': {
        const n = Math.min(left, 4 - this.headerHave);
        chunk.copy(this.header, this.headerHave, i, i + n);
        this.headerHave += n;
        if (this.headerHave === 4) {
          this.counters.stats.interleavedFrames += 1;
          this.channel = this.header[1] ?? 0;
          this.frameLength = this.header.readUInt16BE(2);
          this.payloadHave = 0;
          this.headHave = 0;
          this.fragmentStart = false;
          this.unit = this.frameLength > 0 ? 'payload' : 'boundary';
        }
        return n;
      }
      case 'payload': {
        const headTarget = Math.min(HEAD_BYTES, this.frameLength);
        let n = Math.min(left, this.frameLength - this.payloadHave);
        if (this.headHave < headTarget) {
          n = Math.min(n, headTarget - this.headHave);
          chunk.copy(this.head, this.headHave, i, i + n);
          this.headHave += n;
          this.payloadHave += n;
          if (this.headHave === headTarget) this.decide();
        } else {
          const cutAt = Math.floor(this.frameLength / 2);
          if (this.mode === 'armed' && this.fragmentStart && this.payloadHave < cutAt) {
            n = Math.min(n, cutAt - this.payloadHave);
            this.payloadHave += n;
            if (this.payloadHave === cutAt) {
              this.mode = 'frozen';
              this.cutFrameOpen = true;
            }
          } else {
            this.payloadHave += n;
          }
        }
        if (this.payloadHave === this.frameLength) this.unit = 'boundary';
        return n;
      }
      case 'text': {
        const from = Math.max(0, this.text.length - 3);
        const piece = chunk.toString('latin1', i, chunk.length);
        const all = this.text + piece;
        const end = all.indexOf('\r\n\r\n', from);
        if (end < 0) {
          this.text = all;
          if (this.text.length > MAX_TEXT_HEAD) this.unit = 'lost';
          return left;
        }
        const used = end + 4 - this.text.length;
        const head = all.slice(0, end);
        this.text = '';
        const length = /^content-length:\s*(\d+)\s*$/im.exec(head);
        this.bodyLeft = length?.[1] !== undefined ? Number(length[1]) : 0;
        this.body = '';
        this.unit = this.bodyLeft > 0 ? 'body' : 'boundary';
        return used;
      }
      case 'body': {
        const n = Math.min(left, this.bodyLeft);
        if (this.body.length < MAX_BODY_KEPT) this.body += chunk.toString('latin1', i, i + n);
        this.bodyLeft -= n;
        if (this.bodyLeft === 0) {
          parseRtpmap(this.body, this.payloadTypes);
          this.body = '';
          this.unit = 'boundary';
        }
        return n;
      }
      case 'lost':
        // Not RTSP as understood here: pass everything through, never cut.
        return left;
    }
  }

  /** Called once the head of an interleaved frame is in: is it a video packet starting a fragmented NAL? */
  private decide(): void {
    if (this.channel % 2 !== 0 || this.headHave < 12) return;
    const head = this.head.subarray(0, this.headHave);
    const pt = (head[1] ?? 0) & 0x7f;
    const known = this.payloadTypes.get(pt);
    let codec: VideoCodec | undefined;
    if (known === 'h264' || known === 'h265') codec = known;
    else if (known === 'other') return;
    else if (this.channel !== 0) return;
    if (isFragmentStart(head, codec) === true) {
      this.fragmentStart = true;
      this.counters.stats.fuStartFrames += 1;
    }
  }
}
