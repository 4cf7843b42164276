// Keeps a track to the one RTP source it started with: packets of a stranger's SSRC are dropped and counted, not decoded.

/** The source we follow must be silent this long before another SSRC is taken for a restarted sender. */
const SWITCH_AFTER_MS = 1_000;
const RTP_HEADER = 12;

/**
 * A camera sends one SSRC per track. Packets with another one — injected, or a confused camera mixing two encoders —
 * would break every picture they land in if taken as "the sender restarted" each time. So the first SSRC is followed,
 * and another one replaces it only once the first has been silent for a second (a real sender restart).
 */
export class SsrcFilter {
  #ssrc: number | undefined;
  #lastAt = 0;
  /** Packets dropped for coming from another source. */
  foreign = 0;

  /** Whether the packet `buffer[start, end)` (arrived at `now`, ms) is from the source this track follows. */
  accept(buffer: Buffer, start: number, end: number, now: number): boolean {
    // Too short to have an SSRC: the depacketizer counts it as malformed.
    if (end - start < RTP_HEADER) return true;
    const ssrc = buffer.readUInt32BE(start + 8);
    if (ssrc === this.#ssrc || this.#ssrc === undefined || now - this.#lastAt >= SWITCH_AFTER_MS) {
      this.#ssrc = ssrc;
      this.#lastAt = now;
      return true;
    }
    this.foreign++;
    return false;
  }
}
