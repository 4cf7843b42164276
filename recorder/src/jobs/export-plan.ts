// Which local files make up a window, and the concat list that trims them to it.
import { copyFile, mkdir, open, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { scanFragmentedFile } from '../media/fmp4-file.js';
import { readVideoSpan, type VideoSpan } from '../media/media-span.js';
import type { ClosedSegment } from '../recording/closed-segment.js';
import { JobFailure } from './job-record.js';

export interface WindowFile {
  path: string;
  /** Start of the file's media, epoch ms (every segment file starts at media time zero). */
  startMs: number;
  endMs: number;
  size: number;
}

export interface LocalArchive {
  /** Closed segments on this node's disk overlapping [fromMs, toMs), oldest first. */
  closedSegments(cameraId: string, fromMs: number, toMs: number): Promise<ClosedSegment[]>;
  /** Files written but not indexed yet (being closed, or open), fragmented, oldest first. */
  unindexedSegments(cameraId: string): Array<{ path: string; startMs: number }>;
  recordPath: string;
}

/** Copies the complete fragments of a file still being written, so the tool reads a stable file. */
async function snapshotOpenFile(path: string, scratchDir: string, n: number): Promise<{ path: string; seconds: number; size: number } | undefined> {
  const scan = await scanFragmentedFile(path).catch(() => undefined);
  if (scan === undefined || scan.fragments === 0) return undefined;
  const target = join(scratchDir, `unindexed-${n}.mp4`);
  // The file may be finished and renamed meanwhile (mp4 remux): then the index has it next time.
  if (!(await copyFile(path, target).then(() => true, () => false))) return undefined;
  const fh = await open(target, 'r+');
  try {
    await fh.truncate(scan.completeEnd);
  } finally {
    await fh.close();
  }
  return { path: target, seconds: scan.duration, size: scan.completeEnd };
}

export async function collectWindowFiles(archive: LocalArchive, cameraId: string, fromMs: number, toMs: number, scratchDir: string): Promise<WindowFile[]> {
  await mkdir(scratchDir, { recursive: true });
  const files: WindowFile[] = (await archive.closedSegments(cameraId, fromMs, toMs)).map((s) => ({
    path: join(archive.recordPath, s.filename),
    startMs: s.start.getTime(),
    endMs: s.end.getTime(),
    size: s.size,
  }));
  const known = new Set(files.map((f) => f.startMs));
  for (const [i, open] of archive.unindexedSegments(cameraId).entries()) {
    // The index keeps whole-second starts (the file name's); a segment indexed meanwhile is not taken twice.
    if (open.startMs >= toMs || known.has(Math.floor(open.startMs / 1000) * 1000)) continue;
    const snap = await snapshotOpenFile(open.path, scratchDir, i);
    if (snap !== undefined && open.startMs + snap.seconds * 1000 > fromMs) {
      files.push({ path: snap.path, startMs: open.startMs, endMs: open.startMs + snap.seconds * 1000, size: snap.size });
    }
  }
  files.sort((a, b) => a.startMs - b.startMs);
  if (files.length === 0) throw new JobFailure('no_recordings', `camera ${cameraId} has no recordings on this node between ${new Date(fromMs).toISOString()} and ${new Date(toMs).toISOString()}`);
  return files;
}

/**
 * A concat list's `file` line. ffmpeg reads a relative path in the list relative to the list's own folder (the job's
 * scratch folder), not to the recorder's working directory: a relative `record_path` (the demo's `./var/recordings`)
 * made every export fail. The path is made absolute first.
 */
function fileLine(path: string): string {
  return `file '${resolve(path).replace(/'/g, "'\\''")}'`;
}

/**
 * Writes an ffmpeg concat list: every file, the first cut at `from`, the last at `to`. Returns its path and the seconds it
 * spans.
 *
 * The concat demuxer starts each file where the previous one's duration ends, and a file's duration is its longest
 * track from its zero. A native file's zero is its earliest track — the audio that plays before its first picture — so
 * without help the next file's pictures (and audio) land that lead later: a gap of ~50–70 ms at every file boundary.
 * Each file but the last therefore gets an explicit `duration` from the files' own video spans: its video end (after
 * the inpoint) minus where the next file's video starts. Files whose span cannot be read (progressive MP4) keep
 * ffmpeg's own duration.
 */
export async function writeConcatList(
  files: readonly WindowFile[],
  fromMs: number,
  toMs: number,
  scratchDir: string,
  /** Where a file cut at `to` ends (cleanOutpoint): default, at `to` itself. */
  outpointOf: (file: WindowFile, toSeconds: number) => Promise<number | undefined> = async (_file, toSeconds) => toSeconds,
): Promise<{ listPath: string; seconds: number }> {
  const spans = await Promise.all(files.map((f) => readVideoSpan(f.path)));
  const lines = ['ffconcat version 1.0'];
  let seconds = 0;
  for (const [i, f] of files.entries()) {
    lines.push(fileLine(f.path));
    const inMs = Math.max(0, fromMs - f.startMs);
    const outMs = Math.min(f.endMs, toMs) - f.startMs;
    if (inMs > 0) lines.push(`inpoint ${(inMs / 1000).toFixed(3)}`);
    if (f.endMs > toMs) {
      const outpoint = await outpointOf(f, outMs / 1000);
      // Floored to the microsecond: rounded up, it could keep the first packet the cut is meant to leave out.
      if (outpoint !== undefined) lines.push(`outpoint ${(Math.floor(outpoint * 1e6 + 1e-3) / 1e6).toFixed(6)}`);
    } else {
      const duration = joinDuration(spans[i], spans[i + 1], inMs / 1000);
      if (duration !== undefined) lines.push(`duration ${duration.toFixed(6)}`);
    }
    seconds += Math.max(0, outMs - inMs) / 1000;
  }
  const listPath = join(scratchDir, 'concat.txt');
  await writeFile(listPath, `${lines.join('\n')}\n`);
  return { listPath, seconds };
}

/** How far after this file's (in)point the next file's zero goes so its first picture follows this file's last. */
export function joinDuration(span: VideoSpan | undefined, next: VideoSpan | undefined, inpointSeconds: number): number | undefined {
  if (span === undefined || next === undefined) return undefined;
  const duration = span.end - inpointSeconds - next.start;
  return Number.isFinite(duration) && duration > 0 ? duration : undefined;
}

/** Plain concatenation of whole files (assembled parts). */
export async function writePlainConcatList(paths: readonly string[], scratchDir: string): Promise<string> {
  const listPath = join(scratchDir, 'parts.txt');
  await writeFile(listPath, `ffconcat version 1.0\n${paths.map(fileLine).join('\n')}\n`);
  return listPath;
}
