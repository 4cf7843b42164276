// GET …/segments/{filename}: which file a requested name means, how much of it may be served, and its entity tag.
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { parseSegmentFileName, segmentRelativePath } from '../recording/segment-name.js';

/** Why a requested name is refused before the disk is looked at (400) or not found on it (404). */
export class SegmentFileError extends Error {
  constructor(
    readonly kind: 'invalid_filename' | 'segment_not_found' | 'camera_not_found',
    message: string,
  ) {
    super(message);
  }
}

export interface SegmentFile {
  /** Relative to record_path (the listing's filename). */
  filename: string;
  path: string;
  /** Bytes that may be served: the whole file, or the complete fragments of one being written. */
  size: number;
  /** The file is still being written (it grows; the size is that of this moment). */
  open: boolean;
  /** Strong validator: device, inode, size served and modification time. */
  etag: string;
  modified: Date;
}

export interface SegmentFileLookup {
  recordPath: string;
  /** Bytes of complete fragments of a file the recorder is writing; undefined for a file it is not writing. */
  writtenSize(cameraId: string, filename: string): number | undefined;
  /** The node knows the camera (records it, or has it configured but stopped). */
  knowsCamera(cameraId: string): boolean;
}

/**
 * The requested name must be a segment file's base name of this camera (`<camera>_<YYYYMMDDTHHMMSSZ>_<seq>.mp4`, as
 * the listing's filename ends): the path is built from the parsed name, so nothing in the request ever becomes a path
 * component of its own. Anything else — a path, `..`, another camera's file, another kind of file — is refused.
 */
export function segmentFilename(cameraId: string, requested: string): string {
  const parsed = requested.includes('/') || requested.includes('\\') ? undefined : parseSegmentFileName(requested);
  if (parsed === undefined || parsed.cameraId !== cameraId) {
    throw new SegmentFileError('invalid_filename', `"${printable(requested)}" is not a segment file name of camera ${cameraId} (${cameraId}_YYYYMMDDTHHMMSSZ_SEQUENCE.mp4, as the listing names it)`);
  }
  const relative = segmentRelativePath(cameraId, parsed.start, parsed.sequence);
  // The name must read back exactly (no leading zeros in the sequence, no other spelling of the same file).
  if (!relative.endsWith(`/${requested}`)) throw new SegmentFileError('invalid_filename', `"${printable(requested)}" is not spelled as the recorder names segment files`);
  return relative;
}

export async function locateSegmentFile(lookup: SegmentFileLookup, cameraId: string, requested: string): Promise<SegmentFile> {
  const filename = segmentFilename(cameraId, requested);
  const path = join(lookup.recordPath, filename);
  const st = await stat(path).catch(() => undefined);
  if (st === undefined || !st.isFile()) {
    const cameraKnown = lookup.knowsCamera(cameraId) || (await stat(join(lookup.recordPath, cameraId)).then((s) => s.isDirectory(), () => false));
    if (!cameraKnown) throw new SegmentFileError('camera_not_found', `camera ${cameraId} is not known on this node and has no recordings here`);
    throw new SegmentFileError('segment_not_found', `no segment file ${requested} of camera ${cameraId} on this node`);
  }
  const written = lookup.writtenSize(cameraId, filename);
  const size = written === undefined ? st.size : Math.min(written, st.size);
  // A file being written only grows: its first `size` bytes never change, whatever its mtime says meanwhile.
  const version = [st.dev, st.ino, size, ...(written === undefined ? [Math.floor(st.mtimeMs)] : [])].map((n) => n.toString(36)).join('-');
  return { filename, path, size, open: written !== undefined, etag: `"${version}"`, modified: st.mtime };
}

function printable(text: string): string {
  return text.slice(0, 100).replace(/[^\x20-\x7e]/g, '?');
}
