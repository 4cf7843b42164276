// A segment's end is its named start plus the seconds of media it holds; a finished file's mtime is set to it.
import { utimes } from 'node:fs/promises';

/**
 * Start as the file name carries it (whole seconds, UTC) plus the media's seconds: the same figure the archive walk
 * reads back from the file, so writer, repair and walk agree on the end, and consecutive segments do not overlap.
 */
export function segmentEnd(start: Date, mediaSeconds: number): Date {
  return new Date(Math.floor(start.getTime() / 1000) * 1000 + Math.round(mediaSeconds * 1000));
}

/** Sets the file's mtime to the segment's end (atime is left as it was), so `mtime` means the end everywhere. */
export async function stampSegmentEnd(path: string, atime: Date, end: Date): Promise<void> {
  await utimes(path, atime, end);
}
