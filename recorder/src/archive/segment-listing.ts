// The segment listing: closed segments of the window from the archive source, the open one added, and days.
import type { ClosedSegment, OpenSegmentInfo } from '../recording/closed-segment.js';
import type { DayClock } from './day-clock.js';
import type { ListingWindow } from './listing-window.js';

/** Where closed segments come from: the in-memory index (walk) or the recordings table. */
export interface ArchiveSource {
  /** Throws ArchiveIndexUnavailableError / ArchiveDiskError rather than answering empty. */
  closedSegments(cameraId: string, fromMs: number, toMs: number): Promise<ClosedSegment[]>;
  days(cameraId: string, clock: DayClock, clockKey: string): Promise<string[]>;
}

export interface SegmentRecordOut {
  timestamp: string;
  sequence: number;
  filename: string;
  size: number;
  mtime: number;
  is_open: boolean;
}

export interface SegmentListing {
  archive: SegmentRecordOut[];
  days: string[];
}

export async function listSegments(
  source: ArchiveSource,
  cameraId: string,
  window: ListingWindow,
  open: OpenSegmentInfo | undefined,
  nowMs: number,
  /** Segments already closed on disk whose index entry is still being written (a few milliseconds). */
  finishing: readonly ClosedSegment[] = [],
): Promise<SegmentListing> {
  const { clock, fromMs, toMs } = window;
  const [indexed, days] = await Promise.all([source.closedSegments(cameraId, fromMs, toMs), source.days(cameraId, clock, window.clockKey)]);
  const names = new Set(indexed.map((s) => s.filename));
  const closed = [...indexed, ...finishing.filter((s) => !names.has(s.filename) && s.start.getTime() < toMs && s.end.getTime() > fromMs)].sort(
    (a, b) => a.start.getTime() - b.start.getTime() || a.sequence - b.sequence,
  );
  const kept = closed.filter((s) => s.filename !== open?.filename);
  const archive: SegmentRecordOut[] = kept.map((s) => ({ timestamp: clock.format(s.start.getTime()), sequence: s.sequence, filename: s.filename, size: s.size, mtime: s.mtime, is_open: false }));
  let allDays = days;
  if (open !== undefined) {
    const start = open.start.getTime();
    // The open segment covers [start, now]; it is listed when that overlaps the window.
    if (start < toMs && (nowMs > fromMs || start >= fromMs)) {
      const rec: SegmentRecordOut = { timestamp: clock.format(start), sequence: open.sequence, filename: open.filename, size: open.size, mtime: Math.floor(nowMs / 1000), is_open: true };
      const at = kept.findIndex((s) => s.start.getTime() > start || (s.start.getTime() === start && s.sequence > rec.sequence));
      if (at < 0) archive.push(rec);
      else archive.splice(at, 0, rec);
    }
    const openDays = new Set(days);
    for (let t = clock.startOfDay(start); t < nowMs; t = clock.startOfDay(t + 26 * 3_600_000)) openDays.add(clock.dayOf(Math.max(t, start)));
    if (openDays.size !== days.length) allDays = [...openDays].sort();
  }
  return { archive, days: allDays };
}
