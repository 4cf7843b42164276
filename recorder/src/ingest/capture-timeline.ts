// Puts a camera's capture times (RTCP sender reports) on the recorder's arrival timeline, for segment names.

/** A capture time this far from where the timeline expects it means the camera's clock stepped: start over there. */
const STEP_MS = 2_000;
/** How fast the offset follows a delay that grew (per picture): a camera clock that slowly loses time is followed. */
const RISE_PER_PICTURE = 0.001;

/**
 * Segment names must sit on one timeline for a camera's whole run: if the first segment were named by arrival (no
 * sender report yet) and the next ones by the camera's capture time, the two would overlap or leave a gap by the
 * path's delay (an encoder's look-ahead alone is a second). So a picture is named by its capture time plus the
 * delay between capture and arrival, estimated as the low envelope of `arrival − capture`: it drops at once to a
 * smaller delay and rises slowly (read ticks and the network only ever add delay). Names keep the camera clock's
 * smooth pace (no read-tick jitter) and follow its drift; before the first sender report they are the arrival time,
 * and a camera clock that steps by more than 2 s starts the estimate over.
 */
export class CaptureTimeline {
  #delay: number | undefined;
  /** Times the estimate started over because the camera's clock stepped. */
  steps = 0;

  /** The time (epoch ms) to name a picture by. `captureMs`: from the sender reports, undefined before the first. */
  timeOf(captureMs: number | undefined, arrivalMs: number): number {
    if (captureMs === undefined) return arrivalMs;
    const sample = arrivalMs - captureMs;
    const delay = this.#delay;
    if (delay === undefined || Math.abs(sample - delay) > STEP_MS) {
      if (delay !== undefined) this.steps++;
      this.#delay = sample;
    } else if (sample < delay) {
      this.#delay = sample;
    } else {
      this.#delay = delay + (sample - delay) * RISE_PER_PICTURE;
    }
    return captureMs + (this.#delay as number);
  }
}
