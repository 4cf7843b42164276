// The one playback timeline across segments: continuous recordings follow on exactly, a gap stays a gap of its length.
import type { TrackInfo } from '../media/fmp4-types.js';

/**
 * A segment whose first picture is this much (or less) after the previous one's end follows on from it. Closed
 * segments' starts are known to the second (their file name), so continuous ones look up to a second apart; a real
 * gap (a camera reconnecting, a stop and start) is longer.
 */
export const GAP_THRESHOLD_SECONDS = 1.5;

/**
 * The wall-clock time of a segment's first picture. The writer knows it to the millisecond for the files it writes
 * now; a closed segment's start comes from its name, which drops the milliseconds: the middle of that second is the
 * best guess (half a second off at most, instead of up to a whole one).
 */
export function firstPictureWallMs(startMs: number, precise: boolean): number {
  return precise ? startMs : Math.floor(startMs / 1000) * 1000 + 500;
}

export class PlayTimeline {
  /** Ticks of the lead track (video, else the first track) per second. */
  readonly timescale: number;
  /** Wall-clock time (epoch ms) of output time zero. */
  readonly originWallMs: number;
  /** Output ticks where the last fragment put out so far ends. */
  #endTicks = 0;

  constructor(timescale: number, originWallMs: number) {
    this.timescale = timescale;
    this.originWallMs = originWallMs;
  }

  get endTicks(): number {
    return this.#endTicks;
  }

  /** A fragment ending at `endTicks` (output) was put out. */
  advance(endTicks: number): void {
    this.#endTicks = Math.max(this.#endTicks, endTicks);
  }

  /**
   * Output ticks for the first picture of the next segment: right after the previous one when it follows on,
   * at its own wall-clock position when a gap lies between them.
   */
  placeNext(firstWallMs: number): number {
    const atWall = Math.round(((firstWallMs - this.originWallMs) / 1000) * this.timescale);
    return atWall - this.#endTicks > GAP_THRESHOLD_SECONDS * this.timescale ? atWall : this.#endTicks;
  }

  /** Wall-clock time (epoch ms) of an output tick of the lead track. */
  wallOf(ticks: number): number {
    return this.originWallMs + (ticks / this.timescale) * 1000;
  }
}

/**
 * Ticks to add to each track's decode times so that the lead track's moves by `leadShift` (its own ticks): the same
 * shift in seconds for every track keeps audio with its pictures.
 */
export function trackShifts(tracks: readonly TrackInfo[], lead: TrackInfo, leadShift: number): Map<number, number> {
  const shifts = new Map<number, number>();
  for (const t of tracks) {
    shifts.set(t.trackId, t.trackId === lead.trackId ? leadShift : Math.round((leadShift / lead.timescale) * t.timescale));
  }
  return shifts;
}
