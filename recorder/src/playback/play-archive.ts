// What playback needs from the recorder: this node's segment files of a window, and how much of an open one may be read.

export interface PlaySegment {
  /** Relative to record_path, as the listing names it. */
  filename: string;
  /** Where to read it: the segment file, or the `.part` of an mp4-format segment still being written. */
  path: string;
  sequence: number;
  /** Epoch ms of its first picture: the writer's own for files it is writing, the name's whole second otherwise. */
  startMs: number;
  /** startMs is the writer's, to the millisecond (not a file name's). */
  startPrecise: boolean;
}

export interface PlayArchive {
  /**
   * This node's segments of the camera overlapping [fromMs, toMs) — closed, being closed and the open one — oldest
   * first. Throws ArchiveDiskError when the camera's folders cannot be read.
   */
  segments(cameraId: string, fromMs: number, toMs: number): Promise<PlaySegment[]>;
  /** How many bytes of a file being written may be read (whole fragments only); undefined once it is closed. */
  writtenSize(cameraId: string, filename: string): number | undefined;
}
