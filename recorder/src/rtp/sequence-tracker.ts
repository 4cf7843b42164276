// A track's 16-bit RTP sequence numbers: wrap-around, losses, duplicates, restarts, and the counts a Receiver Report needs.

/**
 * What one sequence number means for the packet carrying it:
 * - `first`: the first packet (or the first after `reset`);
 * - `next`: the one after the previous;
 * - `gap`: ahead of the expected one; the packets in between are lost (`lastGap` of them) — whatever was being
 *   assembled is broken;
 * - `duplicate`: the highest seen or up to 100 behind it (a copy, or a reordered packet already counted as lost):
 *   ignore it;
 * - `jump`: far off the sequence: ignored, as a stray packet would be, until a second one follows it;
 * - `resync`: that second one — the sender restarted its sequence: a break, but not counted as lost.
 */
export type SequenceVerdict = 'first' | 'next' | 'gap' | 'duplicate' | 'jump' | 'resync';

/** A step forward larger than this is a jump, not a loss (RFC 3550 A.1's MAX_DROPOUT). */
const MAX_DROPOUT = 3000;
/** A step back of at most this is a late packet, not a jump (RFC 3550 A.1's MAX_MISORDER). */
const MAX_MISORDER = 100;
const SEQ_MOD = 0x10000;

/** Loss figures for one Receiver Report block (RFC 3550 §6.4.1). */
export interface LossReport {
  /** Lost/expected since the previous report, as the 8-bit fixed-point wire value (0–255). */
  fractionLost: number;
  /** Expected minus received since the first packet (or the last restart), clamped to the 24-bit signed field. */
  cumulativeLost: number;
  /** The highest sequence number with its wrap count in the upper 16 bits. */
  extendedHighestSequence: number;
}

export class SequenceTracker {
  /** Sequence numbers lost over the tracker's life, across restarts (a gap of n counts n). */
  lost = 0;
  /** Size of the most recent gap. */
  lastGap = 0;
  private started = false;
  private highest = 0;
  private cycles = 0;
  private base = 0;
  private received = 0;
  private probation = -1;
  private expectedPrior = 0;
  private receivedPrior = 0;

  accept(sequenceNumber: number): SequenceVerdict {
    const seq = sequenceNumber & 0xffff;
    if (!this.started) {
      this.restart(seq);
      return 'first';
    }
    const delta = (seq - this.highest + SEQ_MOD) % SEQ_MOD;
    if (delta === 0) return 'duplicate';
    if (delta < MAX_DROPOUT) {
      this.probation = -1;
      if (seq < this.highest) this.cycles += SEQ_MOD;
      this.highest = seq;
      this.received++;
      if (delta === 1) return 'next';
      this.lastGap = delta - 1;
      this.lost += delta - 1;
      return 'gap';
    }
    if (delta >= SEQ_MOD - MAX_MISORDER) return 'duplicate';
    if (seq === this.probation) {
      this.restart(seq);
      return 'resync';
    }
    this.probation = (seq + 1) % SEQ_MOD;
    return 'jump';
  }

  /** The extended highest sequence number (wraps counted in the upper bits), for a Receiver Report. */
  get extendedHighestSequence(): number {
    return (this.cycles + this.highest) % 0x100000000;
  }

  /** Packets expected since the first (or the restart): extended highest − first + 1. */
  get expected(): number {
    return this.started ? this.cycles + this.highest - this.base + 1 : 0;
  }

  /** Figures for a Receiver Report; starts the next report interval (the fraction is per interval). */
  takeLossReport(): LossReport {
    const expected = this.expected;
    const expectedInterval = expected - this.expectedPrior;
    const lostInterval = expectedInterval - (this.received - this.receivedPrior);
    this.expectedPrior = expected;
    this.receivedPrior = this.received;
    const fractionLost = expectedInterval <= 0 || lostInterval <= 0 ? 0 : Math.min(255, Math.floor((lostInterval * 256) / expectedInterval));
    const cumulativeLost = Math.max(-0x800000, Math.min(0x7fffff, expected - this.received));
    return { fractionLost, cumulativeLost, extendedHighestSequence: this.extendedHighestSequence };
  }

  /** Forget the sequence (a new session or SSRC); `lost` stays, it is the track's history. */
  reset(): void {
    this.started = false;
    this.probation = -1;
  }

  private restart(seq: number): void {
    this.started = true;
    this.highest = seq;
    this.base = seq;
    this.cycles = 0;
    this.received = 1;
    this.probation = -1;
    this.expectedPrior = 0;
    this.receivedPrior = 0;
  }
}
