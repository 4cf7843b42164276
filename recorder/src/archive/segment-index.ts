// In-memory index of closed segments per camera, ordered by start then sequence.
import type { ClosedSegment } from '../recording/closed-segment.js';

function compare(a: ClosedSegment, b: ClosedSegment): number {
  return a.start.getTime() - b.start.getTime() || a.sequence - b.sequence;
}

export class SegmentIndex {
  readonly #byCamera = new Map<string, ClosedSegment[]>();
  readonly #known = new Set<string>();

  /** Adds a segment; a filename already indexed is replaced (the walk and the writer may both report it). */
  add(segment: ClosedSegment): void {
    if (this.#known.has(segment.filename)) this.remove(segment.cameraId, segment.filename);
    let list = this.#byCamera.get(segment.cameraId);
    if (list === undefined) {
      list = [];
      this.#byCamera.set(segment.cameraId, list);
    }
    this.#known.add(segment.filename);
    const last = list[list.length - 1];
    if (last === undefined || compare(last, segment) <= 0) {
      list.push(segment);
      return;
    }
    let lo = 0;
    let hi = list.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compare(list[mid] as ClosedSegment, segment) <= 0) lo = mid + 1;
      else hi = mid;
    }
    list.splice(lo, 0, segment);
  }

  remove(cameraId: string, filename: string): boolean {
    const list = this.#byCamera.get(cameraId);
    if (list === undefined || !this.#known.delete(filename)) return false;
    const at = list.findIndex((s) => s.filename === filename);
    if (at >= 0) list.splice(at, 1);
    if (list.length === 0) this.#byCamera.delete(cameraId);
    return at >= 0;
  }

  has(filename: string): boolean {
    return this.#known.has(filename);
  }

  cameras(): string[] {
    return [...this.#byCamera.keys()];
  }

  /** The camera's closed segments, oldest first (a live view: do not mutate). */
  segments(cameraId: string): readonly ClosedSegment[] {
    return this.#byCamera.get(cameraId) ?? [];
  }

  oldest(cameraId: string): ClosedSegment | undefined {
    return this.#byCamera.get(cameraId)?.[0];
  }
}
