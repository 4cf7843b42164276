// The shapes the fMP4 muxer takes: track configurations from the codec's parameter sets and samples to put in fragments.

export interface H264TrackConfig {
  codec: 'h264';
  /** Raw SPS NAL unit (no start code), and the PPSs. */
  sps: Buffer;
  pps: Buffer[];
}

export interface H265TrackConfig {
  codec: 'h265';
  vps: Buffer;
  sps: Buffer;
  pps: Buffer[];
}

export type VideoTrackConfig = H264TrackConfig | H265TrackConfig;

export interface AacTrackConfig {
  codec: 'aac';
  /** AudioSpecificConfig bytes (from the SDP `config=` hex). */
  audioSpecificConfig: Buffer;
  sampleRate: number;
  channels: number;
}

export interface MuxerTracks {
  video?: VideoTrackConfig;
  audio?: AacTrackConfig;
}

/** Track ids the muxer uses in the init segment and every fragment. */
export const VIDEO_TRACK_ID = 1;
export const AUDIO_TRACK_ID = 2;

/** One sample of a fragment. */
export interface MuxSample {
  /**
   * The sample's payload pieces, written one after the other into the mdat. For video these are NAL units WITHOUT
   * length prefixes: the muxer writes the 4-byte length before each. For audio, one raw AAC frame.
   */
  parts: Buffer[];
  /** Duration in the track's timescale (video: 90 000 Hz; audio: the sample rate). */
  duration: number;
  /** Video only: a sync sample (IDR). Audio samples are always sync samples. */
  keyframe?: boolean;
  /**
   * Presentation time minus decode time, in the track's timescale (B-frames: the RTP timestamp is the
   * presentation time, the decode time comes from the sample order). Absent means 0. When any sample
   * of a run has one, the trun carries offsets (version 1, signed, if any is negative).
   */
  compositionOffset?: number;
}

export interface TrackRun {
  /** tfdt baseMediaDecodeTime in the track's timescale (may exceed 2^32: written as a 64-bit tfdt). */
  baseDecodeTime: number;
  samples: MuxSample[];
  /**
   * Ticks per second of the track, only used for the returned MediaFragment's times: video defaults
   * to 90 000; an audio-only fragment needs it (the sample rate), buildFragment throws without it.
   */
  timescale?: number;
}

export interface FragmentInput {
  /** mfhd sequence number, from 1, increasing. */
  sequenceNumber: number;
  /** Empty runs are left out of the fragment; at least one run must have samples. */
  video?: TrackRun;
  /**
   * A fragment without video samples is reported as a keyframe timed by the audio (right for an
   * audio-only stream). A stream WITH video should carry its audio in the video fragments: the fMP4
   * parser reports a video-less fragment of such a stream as a non-keyframe without a decode time.
   */
  audio?: TrackRun;
}
