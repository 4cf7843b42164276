// Decode times for pictures that arrive in decoding order with presentation times (RTP): B-frames, clock steps, exact chaining.
import type { PictureOrder } from '../media/picture-order.js';

/** Assumed picture interval before the stream shows its own (25 fps at 90 kHz). */
const DEFAULT_INTERVAL = 3_600;
/** A jump forward of the camera's clock beyond this is a clock step, not a pause of the camera (90 kHz: 10 s). */
const FORWARD_STEP_TICKS = 900_000;
/** More reordering than this many pictures is not B-frames (H.264 and H.265 allow at most 16): a clock step. */
const MAX_REORDER = 16;
/**
 * A keyframe this many intervals later than the chain expects it comes after lost pictures: it is placed at its time,
 * leaving the gap. Less is the jitter of the camera's timestamps (up to an interval either way), which the chain absorbs.
 */
const KEYFRAME_GAP_INTERVALS = 1.5;
/** The shortest step between decode targets taken for a picture interval (1 ms). */
const MIN_INTERVAL = 90;
/** Picture intervals kept for the interval estimate (their median). */
const INTERVAL_WINDOW = 9;
/** POCs (or presentation times) kept to tell how many earlier pictures a picture is presented before. */
const ORDER_WINDOW = 32;

/** Where one picture goes on the stream's video timeline (90 kHz ticks). */
export interface PicturePlacement {
  /** Decode time: exactly where the previous picture's decode time plus its duration ended. */
  decodeTime: number;
  /** Until the next picture's decode time. */
  duration: number;
  /** Presentation time minus decode time (negative only for a moment after deeper reordering than announced). */
  compositionOffset: number;
}

export interface VideoTimelineOptions {
  /**
   * Pictures that may be decoded before a picture and presented after it (the SPS's max_num_reorder_frames /
   * sps_max_num_reorder_pics); undefined when the stream does not say (then 0 until it shows otherwise).
   */
  reorderDepth: number | undefined;
  /** The picture interval the stream announces (VUI timing), if any. */
  interval?: number;
  /** How much the POC rises from one picture to the next in presentation order (H.264 frames: 2; H.265: 1). */
  pocPerPicture?: number;
}

/**
 * Places pictures on a timeline that chains exactly: each picture's decode time is the previous one's plus its
 * duration, so consecutive fragments of a track meet without a gap or an overlap — what MSE players need (a decode
 * time off by a few milliseconds made Chromium drop pictures up to the next keyframe).
 *
 * Decode times are derived from presentation order, as a reordering encoder means them: with a reorder depth of N,
 * picture i is decoded at the presentation time of the picture N places earlier in presentation order (the i−N-th
 * smallest presentation time, which has always arrived by then), so decode durations are presentation intervals and
 * every composition offset is at least zero. The first picture's presentation is moved N intervals in, so the N
 * pictures decoded before it in that order have room. A picture's duration is fixed when it arrives (it goes out at
 * once): it is the expected interval, corrected by how far the chain is from where the picture's decode time should
 * be, so an error never accumulates and the next picture is where it should be whenever the camera keeps its pace.
 *
 * The picture order counts (POCs), when the slice headers can be read, tell a B-frame from a camera clock stepping
 * back: a picture presented after every picture before it (POC) whose time went back by more than two intervals is a
 * clock step (less is jitter: the picture follows the latest one), and the camera's clock is moved onto the timeline
 * where it left off, as it is for a step forward of more than 10 s. Without POCs, a step back further than 16 pictures
 * is a clock step and anything less is reordering. A reorder deeper than announced raises the depth; the chain then
 * slows by shortening durations until it is back on time. A gap before a keyframe (lost pictures) is kept as a gap;
 * anywhere else the chain closes it through the picture's duration.
 */
export class VideoTimeline {
  #depth: number;
  /** Whether the stream announced its depth (else early pictures, by POC, are taken as a sign of reordering). */
  readonly #announced: boolean;
  readonly #pocPerPicture: number;
  #interval: number;
  #started = false;
  /** Added to the camera's ticks to get the stream's presentation time. */
  #offset = 0;
  /** Presentation times not yet used as a decode target, ascending. */
  #pending: number[] = [];
  /** The decode time of the next picture. */
  #next = 0;
  #lastTarget = 0;
  /** The target the interval estimate last measured from. */
  #intervalFrom: number | undefined;
  #maxPresentation = 0;
  #intervals: number[] = [];
  #pocs: number[] = [];
  /** The highest POC since the last reset. */
  #maxPoc = 0;
  /** Presentation times of the latest pictures, in decoding order. */
  #recent: number[] = [];
  #firstPresentation = 0;
  /** Times the camera's clock stepped (back, or forward by more than 10 s). */
  clockSteps = 0;
  /** Times the reordering proved deeper than the depth in use. */
  reorderGrowths = 0;

  constructor(opts: VideoTimelineOptions) {
    this.#depth = Math.min(MAX_REORDER, opts.reorderDepth ?? 0);
    this.#announced = opts.reorderDepth !== undefined;
    this.#pocPerPicture = opts.pocPerPicture ?? 2;
    this.#interval = opts.interval !== undefined && opts.interval > 0 ? opts.interval : DEFAULT_INTERVAL;
  }

  /** The first picture's presentation time on the stream's timeline (its decode time is 0): audio is aligned to it. */
  get firstPresentation(): number {
    return this.#firstPresentation;
  }

  get reorderDepth(): number {
    return this.#depth;
  }

  /** A new SPS may announce another depth: it applies from here (a larger one is reached by slowing the chain). */
  setReorderDepth(depth: number | undefined): void {
    if (depth !== undefined && depth > this.#depth) this.#depth = Math.min(MAX_REORDER, depth);
  }

  /** `ticks`: the picture's RTP time, unwrapped (90 kHz). `order`: its POC, if the slice header could be read. */
  place(ticks: number, order: PictureOrder | undefined, keyframe: boolean): PicturePlacement {
    if (!this.#started) return this.#start(ticks, order);
    let presentation = ticks + this.#offset;
    const presentedBefore = this.#presentedBefore(order, presentation);
    const step = this.#clockStep(presentation, presentedBefore, order);
    if (step === 'step') {
      this.clockSteps++;
      // Carry on where the timeline is: one interval after the latest presentation so far.
      this.#offset += this.#maxPresentation + this.#interval - presentation;
      presentation = this.#maxPresentation + this.#interval;
    } else if (step === 'jitter') {
      // A timestamp a little behind although the picture comes after all before it: it follows the latest one.
      presentation = this.#maxPresentation + 1;
    }
    if (step !== 'step') this.#remember(presentation);
    // A picture presented later than the next place (a P-frame after which B-frames come), in a stream that did not
    // say whether it reorders: it does. Seen before those B-frames arrive, so their decode times have room.
    const early = !this.#announced && this.#depth === 0 && order !== undefined && !order.reset && order.poc - this.#maxPoc > this.#pocPerPicture;
    if (early || (step !== 'step' && presentedBefore > this.#depth)) {
      this.reorderGrowths++;
      this.#depth = Math.min(MAX_REORDER, Math.max(this.#depth + 1, presentedBefore));
    }
    if (order !== undefined) this.#maxPoc = order.reset ? order.poc : Math.max(this.#maxPoc, order.poc);
    if (order?.reset === true && keyframe) this.#dropStaleTargets(presentation);
    insertSorted(this.#pending, presentation);
    let target = this.#lastTarget;
    while (this.#pending.length > this.#depth) target = this.#pending.shift() as number;
    if (target !== this.#lastTarget) this.#learnInterval(target);
    this.#lastTarget = target;
    this.#maxPresentation = Math.max(this.#maxPresentation, presentation);
    // Pictures lost before a keyframe (more than a jittery timestamp can explain): the gap is real, the keyframe goes
    // where it belongs.
    if (keyframe && target - this.#next > KEYFRAME_GAP_INTERVALS * this.#interval) this.#next = target;
    return this.#emit(target, presentation);
  }

  #start(ticks: number, order: PictureOrder | undefined): PicturePlacement {
    this.#started = true;
    const first = this.#depth * this.#interval;
    this.#offset = first - ticks;
    this.#firstPresentation = first;
    // The N decode targets before the first picture's own: one interval apart, up to it.
    for (let i = 0; i < this.#depth; i++) this.#pending.push(i * this.#interval);
    this.#pending.push(first);
    this.#maxPresentation = first;
    this.#recent = [first];
    if (order !== undefined) {
      this.#pocs = [order.poc];
      this.#maxPoc = order.poc;
    }
    const target = this.#pending.shift() as number;
    this.#lastTarget = target;
    return this.#emit(target, first);
  }

  #emit(target: number, presentation: number): PicturePlacement {
    const decodeTime = this.#next;
    // The next picture's decode time should be one interval past this one's target. The duration closes whatever gap
    // there is now; when the chain is ahead it slows by at most three quarters of an interval per picture, so every
    // duration stays positive.
    const duration = Math.max(Math.round(this.#interval / 4), Math.round(target + this.#interval - decodeTime));
    this.#next = decodeTime + duration;
    // Without reordering a picture is presented when it is decoded, unless that is more than half an interval from
    // its own time (the chain closing a gap): no offsets to write for a camera that merely jitters.
    const offset = presentation - decodeTime;
    const compositionOffset = this.#depth === 0 && Math.abs(offset) <= this.#interval / 2 ? 0 : offset;
    return { decodeTime, duration, compositionOffset };
  }

  /**
   * How many of the recent pictures decoded before this one it is presented before: by POC since the last reset when
   * the slice headers tell, else by the presentation times.
   */
  #presentedBefore(order: PictureOrder | undefined, presentation: number): number {
    let count = 0;
    if (order === undefined) {
      for (const earlier of this.#recent) if (earlier > presentation) count++;
      return count;
    }
    if (order.reset) {
      this.#pocs = [order.poc];
      return 0;
    }
    for (const poc of this.#pocs) if (poc > order.poc) count++;
    this.#pocs.push(order.poc);
    if (this.#pocs.length > ORDER_WINDOW) this.#pocs.shift();
    return count;
  }

  #remember(presentation: number): void {
    this.#recent.push(presentation);
    if (this.#recent.length > ORDER_WINDOW) this.#recent.shift();
  }

  /**
   * Whether the camera's clock stepped: forward by more than 10 s, or back. With POCs, a picture presented after every
   * picture before it whose time is more than two intervals behind the latest is a step back (less is jitter); without
   * them, a picture more than 16 intervals behind what has been decoded (more than any B-frame can be).
   */
  #clockStep(presentation: number, presentedBefore: number, order: PictureOrder | undefined): 'step' | 'jitter' | undefined {
    const ahead = presentation - this.#maxPresentation;
    if (ahead > FORWARD_STEP_TICKS) return 'step';
    if (ahead > 0) return undefined;
    if (order !== undefined) {
      if (presentedBefore > 0) return undefined;
      return -ahead > 2 * this.#interval ? 'step' : 'jitter';
    }
    return this.#lastTarget - presentation > MAX_REORDER * this.#interval ? 'step' : undefined;
  }

  /** At an IDR after lost pictures: targets of pictures long gone would hold the timeline back. */
  #dropStaleTargets(presentation: number): void {
    const oldest = presentation - (this.#depth + 1) * this.#interval - this.#interval / 2;
    while (this.#pending.length > 0 && (this.#pending[0] as number) < oldest) this.#pending.shift();
    // Room for the pictures decoded after this one and presented before it, as at the start.
    for (let i = this.#depth - this.#pending.length; i > 0; i--) {
      const virtual = presentation - i * this.#interval;
      if (virtual > this.#lastTarget) insertSorted(this.#pending, virtual);
    }
  }

  /** The picture interval: the median of the recent steps between decode targets (robust to a lost picture). */
  #learnInterval(target: number): void {
    const last = this.#intervalFrom;
    this.#intervalFrom = target;
    if (last === undefined) return;
    const step = target - last;
    // Under a millisecond is a timestamp that only followed the latest one (jitter), not a picture interval.
    if (step < MIN_INTERVAL || step > FORWARD_STEP_TICKS) return;
    this.#intervals.push(step);
    if (this.#intervals.length > INTERVAL_WINDOW) this.#intervals.shift();
    const sorted = [...this.#intervals].sort((a, b) => a - b);
    this.#interval = sorted[sorted.length >> 1] as number;
  }
}

function insertSorted(list: number[], value: number): void {
  let at = list.length;
  while (at > 0 && (list[at - 1] as number) > value) at--;
  list.splice(at, 0, value);
}
