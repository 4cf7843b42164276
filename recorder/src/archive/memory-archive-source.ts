// Archive source of a node without a database: the in-memory index built from the walk.
import type { ArchiveCatalog } from './archive-catalog.js';
import type { DayClock } from './day-clock.js';
import type { SegmentIndex } from './segment-index.js';
import type { ArchiveSource } from './segment-listing.js';

export function memoryArchiveSource(catalog: ArchiveCatalog, index: SegmentIndex): ArchiveSource {
  return {
    async closedSegments(cameraId, fromMs, toMs) {
      await catalog.ensureCamera(cameraId);
      return index.overlapping(cameraId, fromMs, toMs);
    },
    async days(cameraId: string, clock: DayClock, clockKey: string) {
      await catalog.ensureCamera(cameraId);
      return index.days(cameraId, clock, clockKey);
    },
  };
}
