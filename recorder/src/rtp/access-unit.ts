// What the RTP depacketizers hand the muxer: whole video access units and AAC frames, with their RTP times.

/** One coded picture: its NAL units in decoding order, without start codes or length prefixes. */
export interface VideoAccessUnit {
  kind: 'video';
  codec: 'h264' | 'h265';
  /**
   * The picture's NAL units. Parameter sets (SPS, PPS, VPS) and access unit delimiters are NOT here: they are
   * reported through `parameterSets` of the depacketizer, and a change of them means a new init segment.
   * Views of the depacketizer's scratch memory: valid only while `onUnit` runs.
   */
  nalus: Buffer[];
  /** Total bytes of `nalus` (without length prefixes). */
  bytes: number;
  /** The RTP timestamp (32-bit, as sent; the clock rate is the track's, 90 kHz for video). */
  rtpTimestamp: number;
  /** An IDR / IRAP picture: decoding can start here. */
  keyframe: boolean;
  /** When the unit's first packet arrived (the `receivedAt` given to `push`): a wall clock before any Sender Report. */
  receivedAt: number;
  /**
   * The depacketizer's `parameterSetsVersion` this picture was decoded against: when it differs from the one the
   * consumer's init segment was built from, the consumer builds a new init segment from `parameterSets` first.
   */
  parameterSetsVersion: number;
}

/** One AAC frame (raw, no ADTS header). */
export interface AudioAccessUnit {
  kind: 'audio';
  codec: 'aac';
  data: Buffer;
  /** RTP timestamp of this frame (sample-rate clock). */
  rtpTimestamp: number;
  /** When its (first) packet arrived (the `receivedAt` given to `push`). */
  receivedAt: number;
}

export type AccessUnit = VideoAccessUnit | AudioAccessUnit;

/** H.264: one SPS and its PPSs; H.265: VPS, SPS, PPS. Raw NAL units, no start codes. */
export interface ParameterSets {
  codec: 'h264' | 'h265';
  vps?: Buffer;
  sps: Buffer;
  pps: Buffer[];
}

/** Counters a depacketizer keeps; a broken access unit is dropped, never emitted half. */
export interface DepacketizerStats {
  packets: number;
  /** RTP sequence numbers missing (a gap of n counts n). */
  lostPackets: number;
  /** Access units thrown away because a packet of theirs was lost or malformed. */
  droppedUnits: number;
  /**
   * Whole video access units not emitted because decoding cannot start there: before the first keyframe (and before
   * parameter sets are known), and after a loss until the next keyframe — a P-frame without its reference is garbage.
   */
  skippedUnits: number;
  /** Access units handed to `onUnit`. */
  units: number;
  /** Packets that broke the RTP or payload format rules (bad header, unsupported aggregation, cut-off lengths). */
  malformedPackets: number;
  /** Duplicates, late (reordered) packets and lone strays far off the sequence: ignored, not counted as lost. */
  ignoredPackets: number;
}
