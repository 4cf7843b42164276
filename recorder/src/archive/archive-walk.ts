// Walks record_path once and reports every closed segment file found there.
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { CAMERA_ID_PATTERN } from '../config/schema.js';
import type { ClosedSegment } from '../recording/closed-segment.js';
import { DAY_FOLDER_PATTERN, parseSegmentFileName } from '../recording/segment-name.js';

export interface WalkOptions {
  recordPath: string;
  /** Files being written right now are not closed segments. */
  isOpen(filename: string): boolean;
  onSegment(segment: ClosedSegment): void;
}

/**
 * Reads camera folders, then date folders, then files. The end of a walked segment is its
 * mtime (the last write, i.e. the close), never before its start.
 */
export async function walkArchive(opts: WalkOptions): Promise<number> {
  let count = 0;
  const cameras = await readdir(opts.recordPath).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return [] as string[];
    throw err;
  });
  for (const cameraId of cameras.filter((c) => CAMERA_ID_PATTERN.test(c))) {
    const cameraDir = join(opts.recordPath, cameraId);
    const days = await readdir(cameraDir).catch(() => [] as string[]);
    for (const day of days.filter((d) => DAY_FOLDER_PATTERN.test(d))) {
      const dayDir = join(cameraDir, day);
      for (const name of await readdir(dayDir).catch(() => [] as string[])) {
        const parsed = parseSegmentFileName(name);
        if (parsed === undefined || parsed.cameraId !== cameraId) continue;
        const filename = `${cameraId}/${day}/${name}`;
        if (opts.isOpen(filename)) continue;
        const st = await stat(join(dayDir, name)).catch(() => undefined);
        if (st === undefined || !st.isFile()) continue;
        const end = new Date(Math.max(parsed.start.getTime(), st.mtimeMs));
        opts.onSegment({ cameraId, filename, start: parsed.start, end, sequence: parsed.sequence, size: st.size, mtime: Math.floor(st.mtimeMs / 1000) });
        count++;
      }
    }
  }
  return count;
}
