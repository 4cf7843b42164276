// The camera and day folders under record_path, created one level at a time so record_path itself is never created.
import { mkdir, stat } from 'node:fs/promises';
import { join } from 'node:path';

/** record_path is not there (an unmounted disk): nothing may be written. */
export class RecordPathMissingError extends Error {
  override name = 'RecordPathMissingError';
}

async function mkdirOne(path: string): Promise<void> {
  try {
    await mkdir(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
}

/**
 * Makes `<camera>/<day>/` of a segment's relative file name under record_path. Each level is created on its own
 * (never `recursive`): when record_path is gone the first mkdir fails instead of creating it again on whatever file
 * system lies beneath.
 */
export async function ensureSegmentFolder(recordPath: string, filename: string): Promise<void> {
  const [cameraId, day] = filename.split('/');
  if (cameraId === undefined || day === undefined) throw new Error(`not a segment file name: ${filename}`);
  try {
    await mkdirOne(join(recordPath, cameraId));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') throw new RecordPathMissingError(`record_path ${recordPath} is missing (${code})`);
    throw err;
  }
  await mkdirOne(join(recordPath, cameraId, day));
}

/** Why record_path is not a usable directory (an errno code such as ENOENT), or undefined when it is one. */
export async function recordPathProblem(recordPath: string): Promise<string | undefined> {
  try {
    return (await stat(recordPath)).isDirectory() ? undefined : 'ENOTDIR';
  } catch (err) {
    return (err as NodeJS.ErrnoException).code ?? String(err);
  }
}

/** True when record_path is not an existing directory. */
export async function isRecordPathMissing(recordPath: string): Promise<boolean> {
  return (await recordPathProblem(recordPath)) !== undefined;
}
