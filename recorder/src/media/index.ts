// Public surface of the media layer: fMP4 stream parsing, crash-repair file scanning and codec strings.
export type { InitSegment, MediaFragment, TrackInfo } from './fmp4-types.js';
export { Fmp4StreamParser, DEFAULT_MAX_BOX_BYTES } from './fmp4-stream-parser.js';
export type { Fmp4StreamHandlers, Fmp4StreamParserOptions } from './fmp4-stream-parser.js';
export { scanFragmentedFile } from './fmp4-file.js';
export type { FragmentedFileScan, ScanOptions } from './fmp4-file.js';
export { avcCodecString, hevcCodecString, mp4aCodecString, mimeTypeFor } from './codec-string.js';
export { parseInitSegment } from './init-parser.js';
