// After a crash: cut files left open back to their last complete fragment and finish `.part` remuxes.
import { access, open, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { scanFragmentedFile } from '../media/fmp4-file.js';
import { readMediaSeconds } from '../media/media-span.js';
import type { ClosedSegment } from './closed-segment.js';
import type { OpenSegmentEntry, OpenSegmentJournal } from './open-journal.js';
import { isRecordPathMissing } from './record-path-folders.js';
import { segmentEnd, stampSegmentEnd } from './segment-end-time.js';

export interface RepairDeps {
  recordPath: string;
  journal: OpenSegmentJournal;
  log: Logger;
  remux(partPath: string, finalPath: string): Promise<void>;
  /** Reports a repaired segment; its journal entry is dropped only after this resolves. */
  onRepaired(segment: ClosedSegment): void | Promise<void>;
}

export interface RepairOutcome {
  repaired: ClosedSegment[];
  removed: string[];
}

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

/** Truncates a fragmented file to its last complete fragment; returns its media seconds, or undefined when it holds none. */
async function truncateToCompleteFragments(path: string): Promise<number | undefined> {
  const scan = await scanFragmentedFile(path);
  if (scan.initEnd === 0 || scan.fragments === 0) return undefined;
  const fh = await open(path, 'r+');
  try {
    if (scan.completeEnd < scan.fileSize) await fh.truncate(scan.completeEnd);
    await fh.datasync();
  } finally {
    await fh.close();
  }
  return scan.duration;
}

async function repairOne(entry: OpenSegmentEntry, deps: RepairDeps): Promise<ClosedSegment | undefined> {
  const finalPath = join(deps.recordPath, entry.filename);
  const partPath = `${finalPath}.part`;
  const start = new Date(entry.start);
  let seconds: number | undefined;
  if (entry.format === 'mp4' && (await exists(partPath))) {
    seconds = await truncateToCompleteFragments(partPath);
    if (seconds === undefined) {
      await unlink(partPath);
      return undefined;
    }
    await deps.remux(partPath, finalPath);
  } else if (entry.format === 'fmp4' && (await exists(finalPath))) {
    seconds = await truncateToCompleteFragments(finalPath);
    if (seconds === undefined) {
      await unlink(finalPath);
      return undefined;
    }
  } else if (!(await exists(finalPath))) {
    return undefined; // the crash came before the first byte
  }
  // The end comes from the media, never from the repair's own clock; the file's mtime is set to it.
  seconds ??= await readMediaSeconds(finalPath);
  const st = await stat(finalPath);
  if (seconds === undefined) {
    const end = new Date(Math.max(start.getTime(), st.mtimeMs));
    return { cameraId: entry.cameraId, filename: entry.filename, start, end, sequence: entry.sequence, size: st.size, mtime: Math.floor(st.mtimeMs / 1000) };
  }
  const end = segmentEnd(start, seconds);
  await stampSegmentEnd(finalPath, st.atime, end);
  return { cameraId: entry.cameraId, filename: entry.filename, start, end, sequence: entry.sequence, size: st.size, mtime: Math.floor(end.getTime() / 1000) };
}

/** Repairs every segment the journal says was open; a file that cannot be repaired is logged and left in place. */
export async function repairOpenSegments(deps: RepairDeps): Promise<RepairOutcome> {
  const outcome: RepairOutcome = { repaired: [], removed: [] };
  const entries = await deps.journal.list();
  if (entries.length > 0 && (await isRecordPathMissing(deps.recordPath))) {
    // The files are on the missing disk: a file not found there is not "never written". Keep every entry.
    deps.log.warn({ record_path: deps.recordPath, segments: entries.length }, 'record_path is missing: the segments left open by the previous run are repaired at the next start with record_path present');
    return outcome;
  }
  for (const entry of entries) {
    try {
      const closed = await repairOne(entry, deps);
      if (closed === undefined) outcome.removed.push(entry.filename);
      else {
        outcome.repaired.push(closed);
        await deps.onRepaired(closed);
      }
      deps.log.info({ camera: entry.cameraId, filename: entry.filename, kept: closed !== undefined }, 'segment left open by the previous run repaired');
      await deps.journal.remove(entry);
    } catch (err) {
      deps.log.error({ camera: entry.cameraId, filename: entry.filename, err: String(err) }, 'segment repair failed; file left as it is');
    }
  }
  return outcome;
}
