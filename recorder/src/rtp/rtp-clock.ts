// A track's RTP time: 32-bit timestamps unwrapped into a running tick count, wall-clock time from a Sender Report, and interarrival jitter.

const WRAP = 0x100000000;

/** The Sender Report fields the clock needs (see `SenderReport` in rtcp.ts). */
export interface SenderReportTime {
  rtpTimestamp: number;
  /** The report's NTP time in ms since the Unix epoch. */
  ntpMs: number;
}

/**
 * Unwraps a track's RTP timestamps. Ticks start at the first timestamp plus 2^32, so that a step back (B-frames come
 * in decoding order, their timestamps are presentation times) never goes below zero; only differences of ticks mean
 * anything. Each timestamp is taken as the nearest (±2^31 ticks) to the previous one, so the clock follows the stream
 * across wraps as long as consecutive packets are less than 2^31 ticks apart (6.6 hours at 90 kHz).
 */
export class RtpClock {
  /** Timestamps that went back from the previous one (B-frames, or a sender's clock stepping back). */
  backwardSteps = 0;
  /** Whether the last `extend` went back. */
  steppedBack = false;
  private last = -1;
  private srTicks = 0;
  private srNtpMs = Number.NaN;

  constructor(readonly clockRate: number) {
    if (!(clockRate > 0)) throw new Error(`RTP clock rate must be positive, got ${clockRate}`);
  }

  /** The tick count of a packet's (or unit's) 32-bit RTP timestamp; moves the clock's reference to it. */
  extend(rtpTimestamp: number): number {
    const ticks = this.peek(rtpTimestamp);
    this.steppedBack = this.last >= 0 && ticks < this.last;
    if (this.steppedBack) this.backwardSteps++;
    this.last = ticks;
    return ticks;
  }

  /** The tick count `extend` would give, without moving the reference (for a Sender Report's timestamp). */
  peek(rtpTimestamp: number): number {
    const ts = rtpTimestamp >>> 0;
    if (this.last < 0) return ts + WRAP;
    const delta = (ts - (this.last % WRAP)) | 0;
    return this.last + delta;
  }

  /** Ties RTP time to wall-clock time from a Sender Report of this track's source. */
  onSenderReport(report: SenderReportTime): void {
    if (this.last < 0) this.last = (report.rtpTimestamp >>> 0) + WRAP;
    this.srTicks = this.peek(report.rtpTimestamp);
    this.srNtpMs = report.ntpMs;
  }

  get hasSenderReport(): boolean {
    return !Number.isNaN(this.srNtpMs);
  }

  /** Wall-clock ms since the Unix epoch of a tick count, from the latest Sender Report; undefined before one. */
  wallClockMs(ticks: number): number | undefined {
    if (!this.hasSenderReport) return undefined;
    return this.srNtpMs + ((ticks - this.srTicks) * 1000) / this.clockRate;
  }

  /** Forget the stream (a new session or SSRC): the next timestamp starts the ticks again, the report is gone. */
  reset(): void {
    this.last = -1;
    this.steppedBack = false;
    this.srTicks = 0;
    this.srNtpMs = Number.NaN;
  }
}

/**
 * Interarrival jitter of RFC 3550 §6.4.1 / A.8, in timestamp units: the smoothed difference between how far apart two
 * packets arrived and how far apart their timestamps say they were sent.
 */
export class JitterEstimator {
  private value = 0;
  private lastTimestamp = 0;
  private lastArrivalMs = Number.NaN;

  constructor(private readonly clockRate: number) {}

  update(rtpTimestamp: number, arrivalMs: number): void {
    if (!Number.isNaN(this.lastArrivalMs)) {
      const sentApart = (rtpTimestamp - this.lastTimestamp) | 0;
      const arrivedApart = ((arrivalMs - this.lastArrivalMs) * this.clockRate) / 1000;
      this.value += (Math.abs(arrivedApart - sentApart) - this.value) / 16;
    }
    this.lastTimestamp = rtpTimestamp;
    this.lastArrivalMs = arrivalMs;
  }

  /** The jitter as a Receiver Report carries it (an unsigned 32-bit timestamp-unit count). */
  get jitter(): number {
    return Math.min(0xffffffff, Math.floor(this.value));
  }

  reset(): void {
    this.value = 0;
    this.lastArrivalMs = Number.NaN;
  }
}
