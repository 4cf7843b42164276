// The shape every RTP depacketizer has, the per-packet intake they share, and the error that sends a track back to ffmpeg.
import type { AccessUnit, AudioAccessUnit, DepacketizerStats, ParameterSets, VideoAccessUnit } from './access-unit.js';
import { JitterEstimator } from './rtp-clock.js';
import { createRtpHeader, parseRtpHeader } from './rtp-packet.js';
import { SequenceTracker } from './sequence-tracker.js';

/**
 * Construction options. `fmtp` is the SDP `a=fmtp` parameters of the track with lower-cased keys (values as
 * written); `clockRate` is the `a=rtpmap` rate (default 90 000 for video; the sample rate for AAC).
 */
export interface DepacketizerOptions<U extends AccessUnit = AccessUnit> {
  /**
   * Called synchronously from `push` (or `flush`) for each whole access unit, in decoding order. Never views of the
   * packet. An audio frame is the consumer's to keep; a video unit's NAL units are views of the depacketizer's
   * scratch memory, valid only during the call (the muxer copies them into the fragment): copy what must outlive it.
   */
  onUnit: (unit: U) => void;
  clockRate?: number;
  fmtp?: Record<string, string>;
}

/** One Receiver Report block's worth of figures about the source (RFC 3550 §6.4.1), minus the LSR/DLSR. */
export interface ReceptionReport {
  ssrc: number;
  fractionLost: number;
  cumulativeLost: number;
  extendedHighestSequence: number;
  /** Interarrival jitter in timestamp units. */
  jitter: number;
}

/**
 * A track's depacketizer. Feed it every RTP packet of the track with `push` (the buffer may be reused as soon as
 * `push` returns); it calls `onUnit` for each complete access unit. A unit with a lost or malformed packet is never
 * emitted, not even in part.
 */
export interface Depacketizer {
  readonly kind: 'video' | 'audio';
  readonly codec: 'h264' | 'h265' | 'aac';
  readonly clockRate: number;
  /** Counters since construction (`reset` keeps them). */
  readonly stats: DepacketizerStats;
  /** The SSRC of the latest packet; undefined before one. A change of SSRC is treated like a sender restart. */
  readonly ssrc: number | undefined;
  /**
   * One packet, `packet[start, end)` (all of `packet` by default). `receivedAt` is a wall clock in ms (Date.now()); it
   * feeds the jitter and the units' `receivedAt`.
   */
  push(packet: Buffer, receivedAt: number, start?: number, end?: number): void;
  /** End of stream: emit the unit in progress if it is whole (no fragment open, nothing lost). */
  flush(): void;
  /** Drop everything in progress and the sequence state (a new session); parameter sets and stats stay. */
  reset(): void;
  /** Figures for a Receiver Report about the source; undefined before the first packet. Starts a new interval. */
  receptionReport(): ReceptionReport | undefined;
}

/**
 * H.264/H.265. `parameterSets` holds the latest SPS/PPS (and VPS), first from the SDP, then from the stream; it is a
 * fresh object whenever any of them changes in content, and `parameterSetsVersion` then goes up by one (0 = none yet).
 * Every video unit carries the version it belongs to, so a consumer compares `unit.parameterSetsVersion` with the
 * version of its init segment. Units are only emitted once `parameterSets` is defined.
 */
export interface VideoDepacketizer extends Depacketizer {
  readonly kind: 'video';
  readonly codec: 'h264' | 'h265';
  readonly parameterSets: ParameterSets | undefined;
  readonly parameterSetsVersion: number;
}

/** Everything the fMP4 muxer needs for an AAC track, from the SDP `config=`. */
export interface AacConfig {
  codec: 'aac';
  audioSpecificConfig: Buffer;
  /** Audio object type (2 = AAC LC, 5 = SBR, 29 = PS). */
  objectType: number;
  /** The core sampling rate of the AudioSpecificConfig. */
  sampleRate: number;
  channels: number;
  /** Samples per frame: 1024, or 960 with the frameLengthFlag. */
  frameLength: number;
}

export interface AudioDepacketizer extends Depacketizer {
  readonly kind: 'audio';
  readonly codec: 'aac';
  readonly config: AacConfig;
}

export type AnyDepacketizer = VideoDepacketizer | AudioDepacketizer;

export type VideoDepacketizerOptions = DepacketizerOptions<VideoAccessUnit>;
export type AudioDepacketizerOptions = DepacketizerOptions<AudioAccessUnit>;

/**
 * A payload format (or a variant of one) the native ingest does not handle; the caller falls back to ffmpeg.
 * `payload` names it, e.g. 'PCMU', 'H264 packetization-mode=2', 'H265 sprop-max-don-diff=2 (DONL)'.
 */
export class UnsupportedPayloadError extends Error {
  constructor(readonly payload: string) {
    super(`unsupported RTP payload: ${payload}`);
    this.name = 'UnsupportedPayloadError';
  }
}

/**
 * What `PacketIntake.take` makes of a packet: `ok` (depacketize it), `break` (depacketize it, but a loss or a sender
 * restart came before it, so whatever was in progress is broken), `ignored` (malformed header, duplicate, late or stray:
 * already counted, nothing to do).
 */
export type IntakeVerdict = 'ok' | 'break' | 'ignored';

/** The per-packet bookkeeping every depacketizer does before looking at the payload: header, sequence, SSRC, jitter. */
export class PacketIntake {
  /** The header of the packet last taken (valid after `take` returned other than `ignored`). */
  readonly header = createRtpHeader();
  ssrc: number | undefined;
  private readonly sequence = new SequenceTracker();
  private readonly jitter: JitterEstimator;

  constructor(
    clockRate: number,
    private readonly stats: DepacketizerStats,
  ) {
    this.jitter = new JitterEstimator(clockRate);
  }

  /** The packet is `packet[start, end)`; the header's payload offsets are offsets in `packet`. */
  take(packet: Buffer, receivedAt: number, start: number, end: number): IntakeVerdict {
    const stats = this.stats;
    stats.packets++;
    const header = this.header;
    if (!parseRtpHeader(packet, header, start, end)) {
      stats.malformedPackets++;
      return 'ignored';
    }
    let verdict: IntakeVerdict = 'ok';
    if (this.ssrc !== undefined && header.ssrc !== this.ssrc) {
      this.sequence.reset();
      this.jitter.reset();
      verdict = 'break';
    }
    this.ssrc = header.ssrc;
    switch (this.sequence.accept(header.sequenceNumber)) {
      case 'duplicate':
      case 'jump':
        stats.ignoredPackets++;
        return 'ignored';
      case 'gap':
        stats.lostPackets += this.sequence.lastGap;
        verdict = 'break';
        break;
      case 'resync':
        verdict = 'break';
        break;
      default:
        break;
    }
    this.jitter.update(header.timestamp, receivedAt);
    return verdict;
  }

  report(): ReceptionReport | undefined {
    if (this.ssrc === undefined) return undefined;
    return { ssrc: this.ssrc, ...this.sequence.takeLossReport(), jitter: this.jitter.jitter };
  }

  reset(): void {
    this.ssrc = undefined;
    this.sequence.reset();
    this.jitter.reset();
  }
}

export function emptyStats(): DepacketizerStats {
  return { packets: 0, lostPackets: 0, droppedUnits: 0, skippedUnits: 0, units: 0, malformedPackets: 0, ignoredPackets: 0 };
}
