// The record of a finished segment file, as the writer, the repair and the archive walk report it.
export interface ClosedSegment {
  cameraId: string;
  /** Relative to record_path, forward slashes, ends .mp4. */
  filename: string;
  start: Date;
  end: Date;
  sequence: number;
  size: number;
  /** Epoch seconds. */
  mtime: number;
}

/** What GET …/current reports about the file being written. */
export interface OpenSegmentInfo {
  cameraId: string;
  filename: string;
  start: Date;
  sequence: number;
  size: number;
}
