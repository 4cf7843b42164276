// Decode times for AAC frames: one frame length after another, exactly, with a gap only where frames were lost.

/** A frame whose RTP time is this far ahead of where the chain expects it (in frames) is taken for lost frames. */
const LOSS_FRAMES = 0.5;

/**
 * Puts AAC frames on the stream's audio timeline (sample-rate ticks). An AAC frame always lasts its frame length
 * (1024 samples, 960, or 512/480 for AAC-LD), so each frame is placed exactly where the previous one ended: fragments
 * chain with no gap and no overlap, whatever jitter the camera's timestamps carry. A frame timed more than half a frame
 * past that point means frames were lost: it is placed a whole number of frames on, leaving the gap the loss made. A
 * frame timed before that point (a camera clock that stepped back, a duplicate timestamp) is placed at it, so nothing
 * is dropped and time never runs backwards.
 */
export class AudioTimeline {
  #next: number | undefined;

  /**
   * @param frameLength Samples per frame.
   * @param sampleRate The track's sample rate (the timeline's ticks per second).
   * @param clockRate The RTP clock the frames' timestamps count in (often the sample rate, sometimes 90 kHz).
   */
  constructor(
    readonly frameLength: number,
    private readonly sampleRate: number,
    private readonly clockRate: number,
  ) {}

  /** Samples of the stream's timeline for `ticks` of the RTP clock. */
  toSamples(ticks: number): number {
    return this.clockRate === this.sampleRate ? ticks : Math.round((ticks * this.sampleRate) / this.clockRate);
  }

  /** The decode time of a frame whose ideal place (its RTP time on the stream's timeline) is `ideal`. */
  place(ideal: number): number {
    let at = this.#next;
    if (at === undefined) at = ideal;
    else if (ideal - at > this.frameLength * LOSS_FRAMES) at += Math.round((ideal - at) / this.frameLength) * this.frameLength;
    this.#next = at + this.frameLength;
    return at;
  }
}
