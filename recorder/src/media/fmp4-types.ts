// Shared data shapes for fragmented-MP4 parsing: track info, init segments and media fragments.
import type { FragmentLease } from './fragment-memory.js';

export interface TrackInfo {
  trackId: number;
  /** hdlr handler type: 'vide' | 'soun' | other four-character code. */
  handler: string;
  /** mdhd timescale (ticks per second). */
  timescale: number;
  /** MSE / RFC 6381 codec string, e.g. 'avc1.64001F', 'hvc1.1.6.L93.B0', 'mp4a.40.2'; '' when unknown. */
  codec: string;
  /** Sample entry four-character code ('avc1', 'hev1', 'mp4a', ...); '' when the track has none. */
  sampleEntry?: string;
  /** Video only: from the visual sample entry, else tkhd. */
  width?: number;
  height?: number;
  /** Audio only: from the audio sample entry. */
  channels?: number;
  sampleRate?: number;
  /** From trex (0 when absent). */
  defaultSampleDuration: number;
  defaultSampleFlags: number;
}

export interface InitSegment {
  /** Exactly the ftyp + moov bytes (plus any top-level box that sat between them). */
  data: Buffer;
  tracks: TrackInfo[];
  /** The first track whose handler is 'vide'. */
  video?: TrackInfo;
}

export interface MediaFragment {
  /** Bytes of moof + mdat, including any styp/sidx/prft/emsg/free that preceded the moof. */
  data: Buffer;
  /** The first sample of the video track (first track if no video) is a sync sample. */
  keyframe: boolean;
  /** Seconds: video track tfdt baseMediaDecodeTime / timescale (NaN if no tfdt). */
  decodeTime: number;
  /** Seconds of video in this fragment (sum of sample durations / timescale). */
  duration: number;
  /** mfhd sequence number (0 if the moof had no mfhd). */
  sequenceNumber: number;
  /** Number of video samples in this fragment (always set by the parser; optional for hand-built values). */
  sampleCount?: number;
  /**
   * The time to name the first video sample by, in milliseconds since the epoch (native ingest only): its capture time
   * from the camera's RTCP sender reports, moved onto the recorder's arrival timeline (CaptureTimeline), else its
   * arrival. Segment names use it instead of the time the fragment reached the hub.
   */
  wallClockMs?: number;
  /**
   * Native ingest reuses fragment memory: whoever keeps `data` (or a view of it) past the call that handed it over
   * holds the lease until done with it, or marks it kept forever. Absent: plain garbage-collected memory.
   */
  lease?: FragmentLease;
}

/** Per-track summary of one traf (times in track timescale ticks). */
export interface TrackFragmentInfo {
  trackId: number;
  /** tfdt baseMediaDecodeTime, or undefined when the traf has no tfdt. */
  baseMediaDecodeTime: number | undefined;
  sampleCount: number;
  /** Sum of sample durations in ticks. */
  durationTicks: number;
  /** Flags of the first sample, resolved through trun/tfhd/trex defaults; undefined when no samples. */
  firstSampleFlags: number | undefined;
  /**
   * Absolute end (stream/file offset relative to the moof start) of this traf's sample data, when
   * all sample sizes are known; used to check that an mdat really holds the data.
   */
  dataEndFromMoof: number | undefined;
}

export interface ParsedMoof {
  sequenceNumber: number;
  trafs: TrackFragmentInfo[];
}

/** ISO/IEC 14496-12 sample_is_non_sync_sample bit in sample flags. */
export const SAMPLE_IS_NON_SYNC = 0x00010000;
