// The framing state machine over socket reads: '$'-interleaved RTP/RTCP frames mixed with RTSP messages.
import { copyBytes } from '../util/byte-copy.js';
import { RtspProtocolError } from './rtsp-errors.js';
import { RtspMessageParser, type RtspMessage } from './rtsp-message.js';

const DOLLAR = 0x24;
const CR = 0x0d;
const LF = 0x0a;
const FRAME_HEADER = 4;
/** A frame's length field is 16 bits, so a carried frame never needs more than this. */
const MAX_FRAME = FRAME_HEADER + 0xffff;

export interface InterleavedSink {
  /**
   * One interleaved frame: its payload is `buffer[start, end)`, where `buffer` is a read buffer shared with other
   * sessions (or this reader's carry buffer): valid only during this call; copy what must outlive it. No view is made
   * per frame: at thousands of packets a second those views are most of what the garbage collector has to do.
   */
  frame(channel: number, buffer: Buffer, start: number, end: number): void;
  /** One complete RTSP response or server request (it owns its memory). */
  message(message: RtspMessage): void;
}

/**
 * Splits reads into frames and messages without copying whole frames: a frame inside a read is handed on as a
 * view; only a frame cut by the end of a read is copied (its partial tail) into a per-reader carry buffer.
 */
export class InterleavedReader {
  private carry: Buffer | undefined;
  private carryHave = 0;
  /** Total bytes (header + payload) of the carried frame; 0 while its 4-byte header is still incomplete. */
  private carryNeed = 0;
  private readonly parser = new RtspMessageParser();
  private stopped = false;

  constructor(private readonly sink: InterleavedSink) {}

  /** After stop() further input is ignored (the sink may close the connection from inside a callback). */
  stop(): void {
    this.stopped = true;
  }

  /** Consumes one read, `chunk[0, end)`; throws RtspProtocolError when the stream is not RTSP. */
  push(chunk: Buffer, end: number = chunk.length): void {
    let off = 0;
    while (off < end && !this.stopped) {
      if (this.carryHave > 0) {
        off = this.continueFrame(chunk, off, end);
        continue;
      }
      if (this.parser.busy) {
        off = this.continueMessage(chunk, off, end);
        continue;
      }
      const b = chunk[off] as number;
      if (b === DOLLAR) {
        if (end - off >= FRAME_HEADER) {
          const stop = off + FRAME_HEADER + ((chunk[off + 2] as number) << 8 | (chunk[off + 3] as number));
          if (stop <= end) {
            this.sink.frame(chunk[off + 1] as number, chunk, off + FRAME_HEADER, stop);
            off = stop;
            continue;
          }
        }
        this.carryHave = 0;
        this.carryNeed = 0;
        off = this.continueFrame(chunk, off, end);
      } else if (b >= 0x41 && b <= 0x5a) {
        // 'R' of "RTSP/1.0 ..." or the first letter of a server request's method.
        off = this.continueMessage(chunk, off, end);
      } else if (b === CR || b === LF) {
        // Some cameras put stray line ends between messages.
        off++;
      } else {
        throw new RtspProtocolError(`unexpected byte 0x${b.toString(16).padStart(2, '0')} in the RTSP stream`);
      }
    }
  }

  private continueMessage(chunk: Buffer, off: number, end: number): number {
    // Messages are rare once streaming (keep-alive answers): a view here costs nothing that matters.
    const { next, message } = this.parser.feed(end === chunk.length ? chunk : chunk.subarray(0, end), off);
    if (message !== undefined) this.sink.message(message);
    return next;
  }

  /** Copies bytes of a frame cut by a read boundary; emits it once complete. */
  private continueFrame(chunk: Buffer, off: number, end: number): number {
    this.carry ??= Buffer.allocUnsafe(MAX_FRAME);
    const carry = this.carry;
    if (this.carryNeed === 0) {
      const take = Math.min(FRAME_HEADER - this.carryHave, end - off);
      copyBytes(chunk, off, off + take, carry, this.carryHave);
      this.carryHave += take;
      off += take;
      if (this.carryHave < FRAME_HEADER) return off;
      this.carryNeed = FRAME_HEADER + ((carry[2] as number) << 8 | (carry[3] as number));
    }
    const take = Math.min(this.carryNeed - this.carryHave, end - off);
    copyBytes(chunk, off, off + take, carry, this.carryHave);
    this.carryHave += take;
    off += take;
    if (this.carryHave === this.carryNeed) {
      const stop = this.carryNeed;
      this.carryHave = 0;
      this.carryNeed = 0;
      this.sink.frame(carry[1] as number, carry, FRAME_HEADER, stop);
    }
    return off;
  }
}
