// A camera's files right now — the index's closed segments plus what the segment writer has open or is closing — the
// one view the listing, playback and the jobs read, so that all three see the same files by the same size rules.
import { join } from 'node:path';
import type { ClosedSegment, OpenSegmentInfo } from '../recording/closed-segment.js';
import type { ArchiveCatalog } from './archive-catalog.js';
import type { SegmentIndex } from './segment-index.js';

/** A file the writer holds: not in the index yet (being closed, or the open one). */
export interface WriterFile extends OpenSegmentInfo {
  /** Where its bytes are now: the segment file, or the `.part` of an mp4-format segment being written. */
  writtenPath: string;
  /** Bytes of whole fragments written so far (what may be read while it grows). */
  writtenSize: number;
}

export interface CameraFilesOptions {
  recordPath: string;
  index: Pick<SegmentIndex, 'overlapping'>;
  /** Reads a camera's folders into the index the first time it is asked for. */
  catalog: Pick<ArchiveCatalog, 'ensureCamera'>;
  /** The writer's files of a camera, oldest first (none when the node does not record it). */
  writerFiles(cameraId: string): WriterFile[];
  /** The file the writer has open now. */
  openFile(cameraId: string): OpenSegmentInfo | undefined;
}

export class CameraFiles {
  readonly recordPath: string;
  readonly #opts: CameraFilesOptions;

  constructor(opts: CameraFilesOptions) {
    this.recordPath = opts.recordPath;
    this.#opts = opts;
  }

  /** Closed segments overlapping [fromMs, toMs), the camera's folders read first when they have not been. */
  async closed(cameraId: string, fromMs: number, toMs: number): Promise<ClosedSegment[]> {
    await this.#opts.catalog.ensureCamera(cameraId);
    return this.#opts.index.overlapping(cameraId, fromMs, toMs);
  }

  /** The writer's files (being closed, then the open one). */
  unindexed(cameraId: string): WriterFile[] {
    return this.#opts.writerFiles(cameraId);
  }

  open(cameraId: string): OpenSegmentInfo | undefined {
    return this.#opts.openFile(cameraId);
  }

  /**
   * The files being closed (not the open one) as closed segments ending now: the listing shows them closed before the
   * index has them.
   */
  finishing(cameraId: string, nowMs: number): ClosedSegment[] {
    const open = this.open(cameraId)?.filename;
    return this.unindexed(cameraId)
      .filter((s) => s.filename !== open)
      .map((s) => ({ cameraId, filename: s.filename, start: s.start, end: new Date(nowMs), sequence: s.sequence, size: s.size, mtime: Math.floor(nowMs / 1000) }));
  }

  /**
   * How many bytes of a file the writer holds may be read (whole fragments); undefined for a file it does not hold
   * (closed: its size on disk counts). `where`: 'written' is wherever its bytes are now (a `.part` included: play reads
   * there); 'named' only when they are at the segment's own name (a `.part` is another file than the one named).
   */
  writtenSize(cameraId: string, filename: string, where: 'written' | 'named'): number | undefined {
    const file = this.unindexed(cameraId).find((s) => s.filename === filename);
    if (file === undefined || (where === 'named' && file.writtenPath !== join(this.recordPath, filename))) return undefined;
    return file.writtenSize;
  }
}
