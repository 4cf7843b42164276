// Public surface of the media layer: fMP4 stream parsing and muxing, crash-repair file scanning and codec strings.
export type { InitSegment, MediaFragment, TrackInfo } from './fmp4-types.js';
export { Fmp4StreamParser, DEFAULT_MAX_BOX_BYTES } from './fmp4-stream-parser.js';
export type { Fmp4StreamHandlers, Fmp4StreamParserOptions } from './fmp4-stream-parser.js';
export { scanFragmentedFile } from './fmp4-file.js';
export type { FragmentedFileScan, ScanOptions } from './fmp4-file.js';
export { avcCodecString, hevcCodecString, mp4aCodecString, mimeTypeFor } from './codec-string.js';
export { parseInitSegment } from './init-parser.js';
export type {
  AacTrackConfig, FragmentInput, H264TrackConfig, H265TrackConfig, MuxSample, MuxerTracks, TrackRun, VideoTrackConfig,
} from './fmp4-muxer-types.js';
export { AUDIO_TRACK_ID, VIDEO_TRACK_ID } from './fmp4-muxer-types.js';
export { buildInitSegment, VIDEO_TIMESCALE } from './fmp4-init-writer.js';
export { buildFragment, fragmentSize } from './fmp4-fragment-writer.js';
export { parseH264Sps, buildAvcC } from './h264-sps.js';
export type { H264Sps } from './h264-sps.js';
export { parseH265Sps, buildHvcC, h265NalType } from './h265-sps.js';
export type { H265Sps, H265ProfileTierLevel } from './h265-sps.js';
export { buildAudioSpecificConfig, buildEsdsPayload } from './aac-config.js';
export { BitstreamError } from './bit-reader.js';
