// Turns a camera's access units into the hub's stream: an init segment at the first keyframe, then fragments of one
// picture each while somebody watches live, of up to 200 ms of pictures while nobody does, on timelines that chain exactly.
import { buildFragment } from '../media/fmp4-fragment-writer.js';
import { buildInitSegment } from '../media/fmp4-init-writer.js';
import type { AacTrackConfig, MuxSample, VideoTrackConfig } from '../media/fmp4-muxer-types.js';
import type { InitSegment, MediaFragment } from '../media/fmp4-types.js';
import { FragmentMemory, type FragmentLease } from '../media/fragment-memory.js';
import type { AacConfig } from '../rtp/depacketizer.js';
import type { ParameterSets, VideoAccessUnit } from '../rtp/access-unit.js';
import { AudioTimeline } from './audio-timeline.js';
import { PictureBatch } from './picture-batch.js';
import { PictureOrderReader, sequenceOrdering } from './picture-order-reader.js';
import { VideoTimeline, type PicturePlacement } from './video-timeline.js';

const VIDEO_CLOCK = 90_000;
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
}

/** The AAC track to record: its config as the depacketizer read it, and the RTP clock its timestamps count in. */
export interface NativeAudio {
  config: AacConfig;
  clockRate: number;
}

export interface NativeStreamOptions {
  /** The audio track to record, when the camera sends AAC and audio is wanted. */
  audio: NativeAudio | undefined;
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
 * Keeps one camera's timelines. The first picture (a keyframe) is decoded at 0 (90 kHz); decode times come from the
 * pictures' presentation order (VideoTimeline: B-frames get composition offsets, clock steps are followed) and chain
 * exactly from fragment to fragment. Audio is placed on the same timeline by the arrival of its first frame relative
 * to the first picture's presentation, then frame after frame (AudioTimeline). A picture goes out as soon as it has
 * arrived (live latency): its duration is fixed then, from the interval the stream keeps, so the next picture's decode
 * time is always where this one ended.
 */
export class NativeStreamAssembler {
  readonly #handlers: NativeStreamHandlers;
  #audio: NativeAudio | undefined;
  #audioTrack: AacTrackConfig | undefined;
  readonly #now: () => number;
  #parameterSets: ParameterSets | undefined;
  #initFor: ParameterSets | undefined;
  #streaming = false;
  #sequence = 0;
  #firstVideoArrival: number | undefined;
  #video: VideoTimeline | undefined;
  readonly #order = new PictureOrderReader();
  #audioTimeline: AudioTimeline | undefined;
  /** Added to the camera's audio samples to get the audio decode time (set by the first frame). */
  #audioOffset: number | undefined;
  #pendingAudio: PendingAudio[] = [];
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
    if (opts.audio !== undefined) this.setAudio(opts.audio);
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

  /** The video timeline's counters: camera clock steps followed, and reordering found deeper than announced. */
  get videoEvents(): { clockSteps: number; reorderGrowths: number; reorderDepth: number } {
    const v = this.#video;
    return { clockSteps: v?.clockSteps ?? 0, reorderGrowths: v?.reorderGrowths ?? 0, reorderDepth: v?.reorderDepth ?? 0 };
  }

  /** The AAC track to record along with the video; set before the first picture. */
  setAudio(audio: NativeAudio): void {
    const { config, clockRate } = audio;
    this.#audio = audio;
    this.#audioTrack = { codec: 'aac', audioSpecificConfig: config.audioSpecificConfig, sampleRate: config.sampleRate, channels: config.channels };
    this.#audioTimeline = new AudioTimeline(config.frameLength, config.sampleRate, clockRate);
  }

  /** The parameter sets in force (from the SDP or in-band); a change takes effect at the next keyframe. */
  setParameterSets(ps: ParameterSets | undefined): void {
    if (ps !== undefined) this.#parameterSets = ps;
  }

  /** `ticks`: the picture's RTP time unwrapped to a monotonic count (90 kHz). `wallClockMs`: the time to name it by. */
  pushVideo(au: VideoAccessUnit, ticks: number, wallClockMs: number | undefined): void {
    const hold = this.#mayHold();
    // A fragment starts at a keyframe (segments and the live view's cache start there), and a viewer gets each picture.
    if (au.keyframe || !hold) this.sendHeld();
    if (au.keyframe && this.#parameterSets !== undefined && !sameParameterSets(this.#initFor, this.#parameterSets)) {
      this.#publishInit(this.#parameterSets);
    }
    const sets = this.#initFor;
    if (!this.#streaming || sets === undefined) {
      this.#pendingAudio = [];
      return;
    }
    const placement = this.#placeVideo(au, ticks, sets);
    if (hold) {
      if (!this.#held.add(au.nalus, au.keyframe, placement, wallClockMs)) {
        // It does not fit beside the pictures held: they go first, and the buffer stays the size of one picture.
        this.sendHeld();
        this.#held.add(au.nalus, au.keyframe, placement, wallClockMs);
      }
      if (placement.decodeTime + placement.duration - (this.#held.firstDecodeTime ?? placement.decodeTime) >= HELD_TICKS) this.sendHeld();
      return;
    }
    this.#send(placement.decodeTime, [{ parts: au.nalus, duration: placement.duration, keyframe: au.keyframe, compositionOffset: placement.compositionOffset }], wallClockMs);
  }

  /** Sends the pictures held back, if any, as one fragment (also when the stream ends, so none is lost). */
  sendHeld(): void {
    const batch = this.#held.take();
    if (batch !== undefined) this.#send(batch.baseDecodeTime, batch.samples, batch.wallClockMs);
  }

  #placeVideo(au: VideoAccessUnit, ticks: number, sets: ParameterSets): PicturePlacement {
    const order = this.#order.orderOf(au.nalus, sets);
    if (this.#video === undefined) {
      const ordering = sequenceOrdering(sets);
      this.#video = new VideoTimeline({
        reorderDepth: ordering.reorderDepth,
        // H.264 counts fields: a frame picture moves its POC by 2; H.265 by 1.
        pocPerPicture: sets.codec === 'h265' ? 1 : 2,
        ...(ordering.interval === undefined ? {} : { interval: ordering.interval }),
      });
      this.#firstVideoArrival = this.#now();
    }
    return this.#video.place(ticks, order, au.keyframe);
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

  /** `ticks`: the frame's RTP time unwrapped (the track's RTP clock). */
  pushAudio(data: Buffer, ticks: number): void {
    const audio = this.#audio;
    const timeline = this.#audioTimeline;
    if (audio === undefined || timeline === undefined || this.#firstVideoArrival === undefined || this.#video === undefined) return;
    const samples = timeline.toSamples(ticks);
    if (this.#audioOffset === undefined) {
      // The first frame plays when the first picture is presented plus the time between their arrivals.
      const sinceVideo = (this.#now() - this.#firstVideoArrival) / 1000 + this.#video.firstPresentation / VIDEO_CLOCK;
      const offset = Math.round(sinceVideo * audio.config.sampleRate) - samples;
      if (samples + offset < 0) return;
      this.#audioOffset = offset;
    }
    const ideal = samples + this.#audioOffset;
    if (ideal < 0) return;
    if (this.#pendingAudio.length >= MAX_PENDING_AUDIO) this.#pendingAudio.shift();
    this.#pendingAudio.push({ data, decodeTime: timeline.place(ideal) });
  }

  #publishInit(ps: ParameterSets): void {
    const init = buildInitSegment({ video: videoTrackConfig(ps), ...(this.#audioTrack === undefined ? {} : { audio: this.#audioTrack }) });
    this.#initFor = ps;
    // Audio from before the stream began has no picture to go with; audio waiting at a later init goes on after it.
    if (!this.#streaming) this.#pendingAudio = [];
    this.#streaming = true;
    // A new SPS may announce deeper reordering: the timeline goes on (decode times chain across init segments).
    this.#video?.setReorderDepth(sequenceOrdering(ps).reorderDepth);
    this.#handlers.onInit(init);
  }

  /**
   * The audio frames that play before the video's end (`videoEnd`, 90 kHz): a fragment's audio follows its pictures'
   * times, not when the frames arrived, so a file holds as much audio as video even when the camera sends its audio
   * ahead of its video by a varying amount (an encoder falling behind under load). Later frames wait for the next one.
   */
  #takeAudio(videoEnd: number): { baseDecodeTime: number; samples: MuxSample[] } | undefined {
    const pending = this.#pendingAudio;
    const audio = this.#audio;
    if (audio === undefined || pending.length === 0) return undefined;
    const limit = (videoEnd / VIDEO_CLOCK) * audio.config.sampleRate;
    let count = 0;
    while (count < pending.length && (pending[count] as PendingAudio).decodeTime < limit) count++;
    if (count === 0) return undefined;
    const taken = pending.slice(0, count);
    this.#pendingAudio = pending.slice(count);
    const frameLength = audio.config.frameLength;
    // Every frame lasts its frame length; where frames were lost the next frame's decode time leaves the gap.
    const samples: MuxSample[] = taken.map((frame) => ({ parts: [frame.data], duration: frameLength }));
    return { baseDecodeTime: (taken[0] as PendingAudio).decodeTime, samples };
  }
}
