// Coalesced socket reads for every RTSP session: one shared read buffer, and paused sockets resumed together per tick.

/** What the scheduler needs from a connection. */
export interface ScheduledReader {
  /**
   * Handles one read: `buffer[0, length)`. `buffer` is the scheduler's shared buffer, valid only during the call (no
   * view of it is made per read: the framing works on offsets). Returns true when the socket may wait for the next
   * tick before reading again (streaming, not closing).
   */
  onRead(buffer: Buffer, length: number): boolean;
  /** Starts reading again (socket.resume()). */
  resume(): void;
  /** Nobody waits on this reader's data right now (no live viewer): it may wait for the longer, idle tick. */
  idle(): boolean;
}

export interface ReadSchedulerOptions {
  /** How often paused sockets are resumed, in ms (default 40). 0 = never pause: read as data comes. */
  tickMs?: number;
  /** The same for sockets whose reader is idle (default: tickMs); never shorter than tickMs. */
  idleTickMs?: number;
  /** Size of the one read buffer shared by all plain-TCP sessions (default 256 KiB). */
  bufferSize?: number;
}

interface Lane {
  readonly tickMs: number;
  parked: Set<ScheduledReader>;
  timer: NodeJS.Timeout | undefined;
}

export interface NetOnread {
  buffer: Buffer;
  callback: (nread: number, buf: Buffer) => boolean;
}

const DEFAULT_TICK_MS = 40;
const DEFAULT_BUFFER_SIZE = 256 * 1024;

/**
 * Most of the cost of ingesting many low-bitrate streams is per read (a syscall and a JS callback per packet).
 * A socket that has drained (a read smaller than the buffer) is paused, and all paused sockets are resumed
 * together every tick, so each camera is read about once per tick however many packets it sent. The kernel's
 * socket buffer holds the packets meanwhile (TCP flow control covers a long stall).
 *
 * A camera somebody watches live is resumed on the short tick (it adds at most its length to the latency); one that
 * is only recorded waits for the idle tick, since its fragments are written in 200 ms batches anyway. A reader moves
 * between the two at its next read.
 *
 * Create one per recorder and pass it to every session. Reads are synchronous with their callback, so sharing
 * one buffer between all sockets is safe as long as nobody keeps a view past the callback.
 */
export class ReadScheduler {
  readonly tickMs: number;
  readonly idleTickMs: number;
  readonly buffer: Buffer;
  private readonly counts = { reads: 0, bytes: 0, pauses: 0, resumes: 0, ticks: 0 };
  /** Paused readers per tick: the live one (tickMs) and the idle one (idleTickMs). */
  private readonly lanes: [Lane, Lane];

  constructor(options: ReadSchedulerOptions = {}) {
    const tickMs = options.tickMs ?? DEFAULT_TICK_MS;
    if (!Number.isFinite(tickMs) || tickMs < 0) throw new RangeError('ReadScheduler: tickMs must be a number >= 0');
    const size = options.bufferSize ?? DEFAULT_BUFFER_SIZE;
    if (!Number.isInteger(size) || size < 4096) throw new RangeError('ReadScheduler: bufferSize must be an integer >= 4096');
    const idleTickMs = Math.max(tickMs, options.idleTickMs ?? tickMs);
    if (!Number.isFinite(idleTickMs)) throw new RangeError('ReadScheduler: idleTickMs must be a number >= 0');
    this.tickMs = tickMs;
    this.idleTickMs = idleTickMs;
    this.buffer = Buffer.allocUnsafe(size);
    this.lanes = [{ tickMs, parked: new Set(), timer: undefined }, { tickMs: idleTickMs, parked: new Set(), timer: undefined }];
  }

  /** Read callbacks so far, all sockets (TLS 'data' events included). */
  get reads(): number {
    return this.counts.reads;
  }

  /** Bytes read so far, all sockets. */
  get bytes(): number {
    return this.counts.bytes;
  }

  /** Sockets paused after a read that drained them. */
  get pauses(): number {
    return this.counts.pauses;
  }

  /** Sockets resumed by a tick. */
  get resumes(): number {
    return this.counts.resumes;
  }

  /** Ticks that resumed at least one socket. */
  get ticks(): number {
    return this.counts.ticks;
  }

  /** The `onread` option for net.connect() on behalf of `reader`. */
  onreadFor(reader: ScheduledReader): NetOnread {
    return {
      buffer: this.buffer,
      callback: (nread: number, buf: Buffer): boolean => {
        this.counts.reads++;
        this.counts.bytes += nread;
        const mayWait = reader.onRead(buf, nread);
        // A full buffer means more is waiting in the kernel: keep reading now.
        if (!mayWait || this.tickMs === 0 || nread >= buf.length) return true;
        this.counts.pauses++;
        this.park(reader, this.lanes[reader.idle() ? 1 : 0]);
        return false;
      },
    };
  }

  /** Counts a read that did not go through onreadFor (TLS sockets deliver 'data' events). */
  countRead(nread: number): void {
    this.counts.reads++;
    this.counts.bytes += nread;
  }

  /** Drops a reader that is closing so no tick resumes it. */
  forget(reader: ScheduledReader): void {
    for (const lane of this.lanes) lane.parked.delete(reader);
  }

  private park(reader: ScheduledReader, lane: Lane): void {
    lane.parked.add(reader);
    if (lane.timer !== undefined) return;
    // Not unref'd: a paused socket is not an active handle, so this timer is what keeps its process alive.
    lane.timer = setTimeout(() => this.tick(lane), lane.tickMs);
  }

  private tick(lane: Lane): void {
    lane.timer = undefined;
    const batch = lane.parked;
    lane.parked = new Set();
    if (batch.size > 0) this.counts.ticks++;
    for (const reader of batch) {
      this.counts.resumes++;
      reader.resume();
    }
  }
}
