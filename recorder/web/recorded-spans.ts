// The recorded spans of a listing: segments that follow on from each other merged, the open one reaching to now.
import type { SegmentRecord } from './archive-api.js';

export interface RecordedSpan {
  startMs: number;
  endMs: number;
  /** It holds the segment being written: it grows. */
  open: boolean;
}

/** Segments whose starts are known to the second look up to this far apart when they follow on (as play treats them). */
const JOIN_MS = 1500;

export function recordedSpans(archive: readonly SegmentRecord[], nowMs: number): RecordedSpan[] {
  const spans: RecordedSpan[] = [];
  for (const seg of archive) {
    const startMs = Date.parse(seg.timestamp);
    const endMs = seg.is_open ? nowMs : seg.mtime * 1000;
    const last = spans[spans.length - 1];
    if (last !== undefined && startMs - last.endMs <= JOIN_MS) {
      last.endMs = Math.max(last.endMs, endMs);
      last.open ||= seg.is_open;
    } else {
      spans.push({ startMs, endMs: Math.max(startMs, endMs), open: seg.is_open });
    }
  }
  return spans;
}

/** The span holding `ms`, or the first one after it. */
export function spanAtOrAfter(spans: readonly RecordedSpan[], ms: number): RecordedSpan | undefined {
  return spans.find((s) => s.endMs > ms);
}
