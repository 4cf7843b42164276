// Wires the playback server into a recorder: this node's segment files (index + files being written) and the play stream.
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { CameraFiles } from './archive/camera-files.js';
import type { PlaybackService } from './http/services.js';
import type { PlayArchive, PlaySegment } from './playback/play-archive.js';
import { openPlayStream } from './playback/play-stream.js';
import { locateSegmentFile } from './playback/segment-file.js';
import type { Clock } from './util/clock.js';

export interface PlaybackOptions {
  /** A camera's files now: the index's and the writer's. */
  files: CameraFiles;
  /** Whether the node knows a camera (configured, running or stopped). */
  knowsCamera(cameraId: string): boolean;
  clock: Clock;
  log: Logger;
  /** A followed recording that has not grown for this long has stopped (stall_seconds). */
  followIdleMs: number;
}

/** Segment files of this node: the index's closed ones, and the writer's (being closed, open) with their exact starts. */
export function localPlayArchive(files: CameraFiles): PlayArchive {
  return {
    segments: async (cameraId, fromMs, toMs) => {
      const bySequence = new Map<number, PlaySegment>();
      for (const s of await files.closed(cameraId, fromMs, toMs)) {
        bySequence.set(s.sequence, { filename: s.filename, path: join(files.recordPath, s.filename), sequence: s.sequence, startMs: s.start.getTime(), startPrecise: false });
      }
      // The writer's files win: they are not in the index yet, or only just, and the writer knows their start exactly.
      for (const s of files.unindexed(cameraId)) {
        if (s.start.getTime() >= toMs) continue;
        bySequence.set(s.sequence, { filename: s.filename, path: s.writtenPath, sequence: s.sequence, startMs: s.start.getTime(), startPrecise: true });
      }
      return [...bySequence.values()].sort((a, b) => a.startMs - b.startMs || a.sequence - b.sequence);
    },
    writtenSize: (cameraId, filename) => files.writtenSize(cameraId, filename, 'written'),
  };
}

export function playbackService(opts: PlaybackOptions): PlaybackService {
  const archive = localPlayArchive(opts.files);
  const deps = { archive, clock: opts.clock, log: opts.log.child({ component: 'playback' }), followIdleMs: opts.followIdleMs };
  return {
    open: (req, signal) => openPlayStream(deps, req, signal),
    segmentFile: (cameraId, requested) => locateSegmentFile(
      {
        recordPath: opts.files.recordPath,
        // Only for the file itself: an mp4-format segment is written as a `.part` and becomes a different file.
        writtenSize: (id, filename) => opts.files.writtenSize(id, filename, 'named'),
        knowsCamera: opts.knowsCamera,
      },
      cameraId,
      requested,
    ),
  };
}
