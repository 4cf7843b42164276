// Turns a camera's access units into the hub's stream: an init segment at the first keyframe, then fragments of one
// picture each while somebody watches live, of up to 200 ms of pictures while nobody does.
import { buildFragment } from '../media/fmp4-fragment-writer.js';
import { buildInitSegment } from '../media/fmp4-init-writer.js';
import type { AacTrackConfig, MuxSample, VideoTrackConfig } from '../media/fmp4-muxer-types.js';
import type { InitSegment, MediaFragment } from '../media/fmp4-types.js';
import { FragmentMemory, type FragmentLease } from '../media/fragment-memory.js';
import type { ParameterSets, VideoAccessUnit } from '../rtp/access-unit.js';
import { PictureBatch } from './picture-batch.js';

const VIDEO_CLOCK = 90_000;
/** Assumed picture duration before two pictures have been seen (25 fps). */
const DEFAULT_PICTURE_TICKS = 3_600;
/** A jump of the camera's clock beyond this (forwards or backwards) is a discontinuity, not a long picture. */
const DISCONTINUITY_TICKS = 10 * VIDEO_CLOCK;
/** AAC frames carry 1024 samples. */
const AAC_FRAME_SAMPLES = 1024;
/**
 * B-frames show as pictures stepping back in time every few pictures. One step back is also what a camera that lost
 * packets under load, or a stray duplicate, can produce: that picture is dropped (and what follows, up to the next
 * keyframe) rather than the camera sent to ffmpeg. This many steps within OUT_OF_ORDER_WINDOW pictures mean B-frames.
 */
const OUT_OF_ORDER_LIMIT = 3;
const OUT_OF_ORDER_WINDOW = 50;
/**
 * While nobody watches live, pictures are held and sent together in fragments of up to this much time (90 kHz): the
 * recording writes in 200 ms batches anyway, and each fragment costs the same however many pictures it holds.
 */
const HELD_TICKS = VIDEO_CLOCK / 5;
/** A camera that announces audio but sends none within this long of its first picture is not waited for (ms). */
const FIRST_AUDIO_WAIT_MS = 2_000;
/** Audio waiting for the next picture beyond this many frames is dropped (a camera whose video stopped). */
const MAX_PENDING_AUDIO = 256;

export interface NativeStreamHandlers {
  onInit(init: InitSegment): void;
  onFragment(fragment: MediaFragment): void;
  /** What the stream holds that native ingest cannot record faithfully (the caller falls back to ffmpeg). */
  onUnsupported(reason: string): void;
}

export interface NativeStreamOptions {
  /** The audio track to record, when the camera sends AAC and audio is wanted. */
  audio: AacTrackConfig | undefined;
  /** Arrival time source (ms); the wall clock by default. */
  now?: () => number;
  /**
   * Whether pictures may be held back and sent up to 200 ms of them in one fragment: nobody watches the camera live.
   * Asked at every picture; absent means never (one fragment per picture).
   */
  mayHoldPictures?: () => boolean;
  /** Where fragments are built (default: a FragmentMemory of this stream's own). */
  memory?: FragmentMemory;
}

interface PendingAudio {
  data: Buffer;
  /** Decode time on the stream's audio timeline (sample-rate ticks). */
  decodeTime: number;
}

function sameParameterSets(a: ParameterSets | undefined, b: ParameterSets): boolean {
  if (a === undefined || a.codec !== b.codec || !a.sps.equals(b.sps) || a.pps.length !== b.pps.length) return false;
  if ((a.vps === undefined) !== (b.vps === undefined) || (a.vps !== undefined && b.vps !== undefined && !a.vps.equals(b.vps))) return false;
  return a.pps.every((p, i) => b.pps[i]?.equals(p) === true);
}

function videoTrackConfig(ps: ParameterSets): VideoTrackConfig {
  if (ps.codec === 'h265') {
    if (ps.vps === undefined) throw new Error('H.265 parameter sets without a VPS');
    return { codec: 'h265', vps: ps.vps, sps: ps.sps, pps: ps.pps };
  }
  return { codec: 'h264', sps: ps.sps, pps: ps.pps };
}

/**
 * Keeps one camera's timeline. Video decode times count from the first picture (90 kHz); audio is placed on the same
 * timeline by the arrival of its first frame relative to the first picture. A picture's duration is not known until
 * the next one arrives, so each fragment carries the previous picture interval: the fragment goes out at once (live
 * latency) and the next fragment's decode time is exact, so an error never accumulates.
 */
export class NativeStreamAssembler {
  readonly #handlers: NativeStreamHandlers;
  #audio: AacTrackConfig | undefined;
  readonly #now: () => number;
  #parameterSets: ParameterSets | undefined;
  #initFor: ParameterSets | undefined;
  #streaming = false;
  #sequence = 0;
  #firstVideoArrival: number | undefined;
  /** Added to the camera's extended RTP ticks to get the decode time (changes at a discontinuity). */
  #videoOffset = 0;
  #lastTicks: number | undefined;
  #lastDecode = 0;
  #pictureTicks = DEFAULT_PICTURE_TICKS;
  #audioOffset: number | undefined;
  #pendingAudio: PendingAudio[] = [];
  #unsupported = false;
  #pictures = 0;
  /** Picture numbers of recent steps back in time. */
  #outOfOrder: number[] = [];
  /** After a dropped picture nothing decodes until the next keyframe. */
  #awaitKeyframe = false;
  /** Pictures dropped for stepping back in time (counted, not fatal). */
  droppedOutOfOrder = 0;
  /** The fragments' memory: blocks that go round rather than a Buffer per fragment. */
  readonly #memory: FragmentMemory;
  /** The lease of the block the fragment being built was carved from. */
  #lease: FragmentLease | undefined;
  readonly #allocate = (bytes: number): Buffer => {
    const taken = this.#memory.take(bytes);
    this.#lease = taken.lease;
    return taken.data;
  };
  readonly #mayHold: () => boolean;
  readonly #held = new PictureBatch();

  constructor(handlers: NativeStreamHandlers, opts: NativeStreamOptions) {
    this.#handlers = handlers;
    this.#audio = opts.audio;
    this.#now = opts.now ?? Date.now;
    this.#mayHold = opts.mayHoldPictures ?? (() => false);
    this.#memory = opts.memory ?? new FragmentMemory();
  }

  /**
   * Whether the stream's timeline no longer depends on when packets arrive: the first picture has come, and the audio
   * (if any) has been placed against it — by the arrival of its first frame — or did not come within 2 s. Until then
   * the runner reads the camera on the short tick, so that arrival is measured to within that tick.
   */
  get settled(): boolean {
    if (this.#firstVideoArrival === undefined) return false;
    if (this.#audio === undefined || this.#audioOffset !== undefined) return true;
    return this.#now() - this.#firstVideoArrival >= FIRST_AUDIO_WAIT_MS;
  }

  /** The AAC track to record along with the video; set before the first picture. */
  setAudio(audio: AacTrackConfig): void {
    this.#audio = { codec: 'aac', audioSpecificConfig: audio.audioSpecificConfig, sampleRate: audio.sampleRate, channels: audio.channels };
  }

  /** The parameter sets in force (from the SDP or in-band); a change takes effect at the next keyframe. */
  setParameterSets(ps: ParameterSets | undefined): void {
    if (ps !== undefined) this.#parameterSets = ps;
  }

  /** `ticks`: the picture's RTP time unwrapped to a monotonic count (90 kHz). `wallClockMs`: the time to name it by. */
  pushVideo(au: VideoAccessUnit, ticks: number, wallClockMs: number | undefined): void {
    if (this.#unsupported) return;
    this.#pictures++;
    const decode = this.#videoDecodeTime(ticks);
    if (decode === undefined) return;
    if (this.#awaitKeyframe && !au.keyframe) return;
    this.#awaitKeyframe = false;
    const hold = this.#mayHold();
    // A fragment starts at a keyframe (segments and the live view's cache start there), and a viewer gets each picture.
    if (au.keyframe || !hold) this.sendHeld();
    if (au.keyframe && this.#parameterSets !== undefined && !sameParameterSets(this.#initFor, this.#parameterSets)) {
      this.#publishInit(this.#parameterSets);
    }
    if (!this.#streaming) {
      this.#pendingAudio = [];
      return;
    }
    if (hold) {
      if (!this.#held.add(au.nalus, au.keyframe, decode, wallClockMs)) {
        // It does not fit beside the pictures held: they go first, and the buffer stays the size of one picture.
        this.sendHeld();
        this.#held.add(au.nalus, au.keyframe, decode, wallClockMs);
      }
      if (decode - (this.#held.firstDecodeTime ?? decode) + this.#pictureTicks >= HELD_TICKS) this.sendHeld();
      return;
    }
    this.#send(decode, [{ parts: au.nalus, duration: this.#pictureTicks, keyframe: au.keyframe }], wallClockMs);
  }

  /** Sends the pictures held back, if any, as one fragment (also when the stream ends, so none is lost). */
  sendHeld(): void {
    const batch = this.#held.take(this.#pictureTicks);
    if (batch !== undefined) this.#send(batch.baseDecodeTime, batch.samples, batch.wallClockMs);
  }

  #send(baseDecodeTime: number, samples: MuxSample[], wallClockMs: number | undefined): void {
    let videoEnd = baseDecodeTime;
    for (const sample of samples) videoEnd += sample.duration;
    const audio = this.#takeAudio(videoEnd);
    const fragment = buildFragment({
      sequenceNumber: ++this.#sequence,
      video: { baseDecodeTime, samples },
      ...(audio === undefined ? {} : { audio }),
    }, this.#allocate);
    if (wallClockMs !== undefined) fragment.wallClockMs = wallClockMs;
    const lease = this.#lease as FragmentLease;
    fragment.lease = lease;
    // Held while it is handed over: those who keep it take holds of their own before this returns.
    const release = lease.hold();
    try {
      this.#handlers.onFragment(fragment);
    } finally {
      release();
    }
  }

  /** `ticks`: the frame's RTP time unwrapped (sample-rate clock). */
  pushAudio(data: Buffer, ticks: number): void {
    if (this.#audio === undefined || this.#unsupported || this.#firstVideoArrival === undefined) return;
    if (this.#audioOffset === undefined) {
      const sinceVideo = ((this.#now() - this.#firstVideoArrival) / 1000) * this.#audio.sampleRate;
      this.#audioOffset = Math.round(sinceVideo) - ticks;
    }
    const decodeTime = ticks + this.#audioOffset;
    if (decodeTime < 0) return;
    if (this.#pendingAudio.length >= MAX_PENDING_AUDIO) this.#pendingAudio.shift();
    this.#pendingAudio.push({ data, decodeTime });
  }

  #videoDecodeTime(ticks: number): number | undefined {
    if (this.#lastTicks === undefined) {
      this.#firstVideoArrival = this.#now();
      this.#videoOffset = -ticks;
      this.#lastTicks = ticks;
      this.#lastDecode = 0;
      return 0;
    }
    const delta = ticks - this.#lastTicks;
    if (delta <= 0 && delta > -DISCONTINUITY_TICKS) {
      this.#outOfOrder = this.#outOfOrder.filter((n) => n > this.#pictures - OUT_OF_ORDER_WINDOW);
      this.#outOfOrder.push(this.#pictures);
      if (this.#outOfOrder.length >= OUT_OF_ORDER_LIMIT) {
        // Pictures sent out of presentation order: B-frames, which need composition offsets this path does not write.
        this.#unsupported = true;
        this.#handlers.onUnsupported('B-frames (pictures out of presentation order)');
      } else {
        this.droppedOutOfOrder++;
        this.#awaitKeyframe = true;
      }
      return undefined;
    }
    if (delta <= -DISCONTINUITY_TICKS || delta >= DISCONTINUITY_TICKS) {
      // The camera's clock jumped: go on from the previous picture as if one interval had passed.
      this.#videoOffset = this.#lastDecode + this.#pictureTicks - ticks;
    } else {
      this.#pictureTicks = delta;
    }
    this.#lastTicks = ticks;
    this.#lastDecode = ticks + this.#videoOffset;
    return this.#lastDecode;
  }

  #publishInit(ps: ParameterSets): void {
    const init = buildInitSegment({ video: videoTrackConfig(ps), ...(this.#audio === undefined ? {} : { audio: this.#audio }) });
    this.#initFor = ps;
    this.#streaming = true;
    this.#pendingAudio = [];
    this.#handlers.onInit(init);
  }

  /**
   * The audio frames that play before the video's end (`videoEnd`, 90 kHz): a fragment's audio follows its pictures'
   * times, not when the frames arrived, so a file holds as much audio as video even when the camera sends its audio
   * ahead of its video by a varying amount (an encoder falling behind under load). Later frames wait for the next one.
   */
  #takeAudio(videoEnd: number): { baseDecodeTime: number; samples: MuxSample[] } | undefined {
    const pending = this.#pendingAudio;
    if (this.#audio === undefined || pending.length === 0) return undefined;
    const limit = (videoEnd / VIDEO_CLOCK) * this.#audio.sampleRate;
    let count = 0;
    while (count < pending.length && (pending[count] as PendingAudio).decodeTime < limit) count++;
    if (count === 0) return undefined;
    const taken = pending.slice(0, count);
    this.#pendingAudio = pending.slice(count);
    const samples: MuxSample[] = taken.map((frame, i) => {
      const next = pending[i + 1];
      const gap = next === undefined ? AAC_FRAME_SAMPLES : next.decodeTime - frame.decodeTime;
      return { parts: [frame.data], duration: gap > 0 && gap < AAC_FRAME_SAMPLES * 4 ? gap : AAC_FRAME_SAMPLES };
    });
    return { baseDecodeTime: (taken[0] as PendingAudio).decodeTime, samples };
  }
}
