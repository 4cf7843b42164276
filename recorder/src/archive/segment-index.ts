// In-memory index of closed segments per camera: ordered records, overlap queries, day rollup.
import type { ClosedSegment } from '../recording/closed-segment.js';
import { parseSegmentFileName, segmentRelativePath } from '../recording/segment-name.js';
import type { DayClock } from './day-clock.js';
import { HourBuckets } from './hour-buckets.js';

/** Compact form: the file name is derived from camera, start and sequence (a million segments stay small). */
interface SegmentRecord {
  start: number;
  end: number;
  sequence: number;
  size: number;
  mtime: number;
}

interface CameraSegments {
  records: SegmentRecord[];
  bySequence: Map<number, SegmentRecord>;
  buckets: HourBuckets;
  /** Longest segment seen: bounds how far before `from` an overlapping segment can start. */
  maxDuration: number;
}

function compare(a: SegmentRecord, b: SegmentRecord): number {
  return a.start - b.start || a.sequence - b.sequence;
}

function toClosed(cameraId: string, r: SegmentRecord): ClosedSegment {
  return {
    cameraId,
    filename: segmentRelativePath(cameraId, new Date(r.start), r.sequence),
    start: new Date(r.start),
    end: new Date(r.end),
    sequence: r.sequence,
    size: r.size,
    mtime: r.mtime,
  };
}

export class SegmentIndex {
  readonly #byCamera = new Map<string, CameraSegments>();

  #camera(cameraId: string): CameraSegments {
    let cam = this.#byCamera.get(cameraId);
    if (cam === undefined) {
      cam = { records: [], bySequence: new Map(), buckets: new HourBuckets(), maxDuration: 0 };
      this.#byCamera.set(cameraId, cam);
    }
    return cam;
  }

  /** Adds a segment; one already indexed under the same sequence is replaced (walk and writer may both report it). */
  add(segment: ClosedSegment): void {
    const existing = this.#byCamera.get(segment.cameraId);
    // Removing the last record drops the camera's entry, so look it up again afterwards.
    if (existing?.bySequence.has(segment.sequence) === true) this.#removeRecord(segment.cameraId, existing, segment.sequence);
    const cam = this.#camera(segment.cameraId);
    // The name carries whole seconds; keep the same start whoever reports the segment.
    const start = Math.floor(segment.start.getTime() / 1000) * 1000;
    const rec: SegmentRecord = { start, end: Math.max(start, segment.end.getTime()), sequence: segment.sequence, size: segment.size, mtime: segment.mtime };
    const list = cam.records;
    const last = list[list.length - 1];
    if (last === undefined || compare(last, rec) <= 0) list.push(rec);
    else list.splice(this.#upperBound(list, rec), 0, rec);
    cam.bySequence.set(rec.sequence, rec);
    cam.buckets.add(rec.start, rec.end);
    cam.maxDuration = Math.max(cam.maxDuration, rec.end - rec.start);
  }

  /** Removes by file name (relative to record_path); false when it was not indexed. */
  remove(cameraId: string, filename: string): boolean {
    const parsed = parseSegmentFileName(filename.split('/').pop() ?? '');
    const cam = this.#byCamera.get(cameraId);
    if (parsed === undefined || cam === undefined || !cam.bySequence.has(parsed.sequence)) return false;
    this.#removeRecord(cameraId, cam, parsed.sequence);
    return true;
  }

  has(cameraId: string, sequence: number): boolean {
    return this.#byCamera.get(cameraId)?.bySequence.has(sequence) ?? false;
  }

  /** Size and end (epoch ms) of an indexed segment, without materialising it. */
  sizeAndEnd(cameraId: string, sequence: number): { size: number; endMs: number } | undefined {
    const r = this.#byCamera.get(cameraId)?.bySequence.get(sequence);
    return r === undefined ? undefined : { size: r.size, endMs: r.end };
  }

  cameras(): string[] {
    return [...this.#byCamera.keys()];
  }

  count(cameraId: string): number {
    return this.#byCamera.get(cameraId)?.records.length ?? 0;
  }

  /** All segments of a camera, oldest first (materialised: use for small sets and tests). */
  segments(cameraId: string): ClosedSegment[] {
    return (this.#byCamera.get(cameraId)?.records ?? []).map((r) => toClosed(cameraId, r));
  }

  oldest(cameraId: string): ClosedSegment | undefined {
    const r = this.#byCamera.get(cameraId)?.records[0];
    return r === undefined ? undefined : toClosed(cameraId, r);
  }

  /** Segments overlapping [fromMs, toMs): start < to and end > from (one that began before `from` included). */
  overlapping(cameraId: string, fromMs: number, toMs: number): ClosedSegment[] {
    const cam = this.#byCamera.get(cameraId);
    if (cam === undefined) return [];
    const list = cam.records;
    let i = this.#lowerBoundStart(list, fromMs - cam.maxDuration);
    const out: ClosedSegment[] = [];
    for (; i < list.length; i++) {
      const r = list[i] as SegmentRecord;
      if (r.start >= toMs) break;
      if (r.end > fromMs || (r.start >= fromMs && r.end === r.start)) out.push(toClosed(cameraId, r));
    }
    return out;
  }

  /** Days with recordings on `clock`, ascending. */
  days(cameraId: string, clock: DayClock, clockKey: string): string[] {
    const cam = this.#byCamera.get(cameraId);
    if (cam === undefined) return [];
    return cam.buckets.days(clock, clockKey);
  }

  #removeRecord(cameraId: string, cam: CameraSegments, sequence: number): void {
    const rec = cam.bySequence.get(sequence);
    if (rec === undefined) return;
    cam.bySequence.delete(sequence);
    const list = cam.records;
    const at = list[0] === rec ? 0 : list.indexOf(rec, Math.max(0, this.#lowerBoundStart(list, rec.start) - 1));
    if (at >= 0) list.splice(at, 1);
    cam.buckets.remove(rec.start, rec.end, (hStart, hEnd) => this.#coverage(cam, hStart, hEnd));
    if (list.length === 0) this.#byCamera.delete(cameraId);
  }

  #coverage(cam: CameraSegments, hStart: number, hEnd: number): { first: number; last: number } | undefined {
    const list = cam.records;
    let first = Infinity;
    let last = -Infinity;
    for (let i = this.#lowerBoundStart(list, hStart - cam.maxDuration); i < list.length; i++) {
      const r = list[i] as SegmentRecord;
      if (r.start >= hEnd) break;
      if (r.end <= hStart && !(r.start === r.end && r.start >= hStart)) continue;
      first = Math.min(first, Math.max(r.start, hStart));
      last = Math.max(last, Math.min(r.end, hEnd));
    }
    return first === Infinity ? undefined : { first, last: Math.max(first, last) };
  }

  #lowerBoundStart(list: SegmentRecord[], start: number): number {
    let lo = 0;
    let hi = list.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((list[mid] as SegmentRecord).start < start) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  #upperBound(list: SegmentRecord[], rec: SegmentRecord): number {
    let lo = 0;
    let hi = list.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compare(list[mid] as SegmentRecord, rec) <= 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
