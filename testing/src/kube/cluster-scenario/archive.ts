// A camera's archive as the segment listing shows it, and the largest gap in it (how long a failover left unrecorded).
import { apiJson } from './api.js';
import type { ClusterDriver } from './driver.js';

/** A segment record of GET /api/archive/{camera}/segments (docs/api.md). */
export interface SegmentRecord {
  timestamp: string;
  sequence: number;
  filename: string;
  size: number;
  mtime: number;
  is_open: boolean;
}

/** A segment's span in epoch seconds: start from its timestamp, end from its mtime (the open one ends now). */
export interface Span {
  start: number;
  end: number;
  filename: string;
}

export interface Gap {
  /** Seconds with no segment; 0 when the spans touch or overlap (two nodes recording at once). */
  seconds: number;
  /** The end of the recording before the gap and the start of the one after it. */
  from?: number;
  to?: number;
}

export function spansOf(archive: SegmentRecord[], nowSeconds: number): Span[] {
  return archive
    .map((s) => ({ start: Date.parse(s.timestamp) / 1000, end: s.is_open ? Math.max(nowSeconds, s.mtime) : s.mtime, filename: s.filename }))
    .filter((s) => Number.isFinite(s.start))
    .sort((a, b) => a.start - b.start || a.end - b.end);
}

/**
 * The largest stretch inside [from, to] covered by no span (overlapping spans count as covered). The window starts no
 * earlier than the first span: a camera that began recording inside the window has no gap before its first segment.
 */
export function largestGap(spans: Span[], from: number, to: number): Gap {
  let best: Gap = { seconds: 0 };
  const first = spans.find((s) => s.end > from);
  let coveredUntil = Math.max(from, first?.start ?? from);
  const consider = (start: number, end: number) => {
    const s = Math.max(start, from);
    const e = Math.min(end, to);
    if (e - s > best.seconds) best = { seconds: e - s, from: s, to: e };
  };
  for (const span of spans) {
    if (span.end <= from) continue;
    if (span.start >= to) break;
    if (span.start > coveredUntil) consider(coveredUntil, span.start);
    coveredUntil = Math.max(coveredUntil, span.end);
  }
  if (coveredUntil < to) consider(coveredUntil, to);
  return best;
}

/** Lists the camera's segments in [from, to] (following a 307 to the node that records it). */
export async function listSegments(driver: ClusterDriver, camera: string, from: number, to: number): Promise<{ archive: SegmentRecord[]; hops: string[] }> {
  const { body, hops } = await apiJson<{ archive: SegmentRecord[] }>(driver, `/api/archive/${encodeURIComponent(camera)}/segments?from=${Math.floor(from)}&to=${Math.ceil(to)}`);
  return { archive: body.archive, hops };
}

/** The largest gap in the camera's archive between `from` and `to` (epoch seconds), from the listing. */
export async function measureArchiveGap(driver: ClusterDriver, camera: string, from: number, to: number): Promise<Gap & { segments: number }> {
  const { archive } = await listSegments(driver, camera, from, to);
  return { ...largestGap(spansOf(archive, Date.now() / 1000), from, to), segments: archive.length };
}
