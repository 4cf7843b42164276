// Archive source of a node with a database: closed segments and days from the recordings table.
import type pg from 'pg';
import { selectDays, selectOverlapping } from '../db/recordings-repository.js';
import { ArchiveIndexUnavailableError } from './archive-errors.js';
import type { ArchiveSource } from './segment-listing.js';

/** Days of rows written by other nodes may be this old; this node's own writes clear the cache at once. */
const DAYS_CACHE_MS = 10_000;

export interface DatabaseArchiveSource extends ArchiveSource {
  /** The recordings rows of a camera changed (this node's outbox delivered). */
  invalidate(cameraId: string): void;
}

export function databaseArchiveSource(pool: pg.Pool, now: () => number = Date.now): DatabaseArchiveSource {
  const unavailable = (err: unknown): never => {
    throw new ArchiveIndexUnavailableError(`the recordings table cannot be read: ${(err as Error).message}`);
  };
  const daysCache = new Map<string, Map<string, { days: string[]; at: number }>>();
  return {
    closedSegments: (cameraId, fromMs, toMs) => selectOverlapping(pool, cameraId, fromMs, toMs).catch(unavailable),
    days: async (cameraId, clock, clockKey) => {
      const cached = daysCache.get(cameraId)?.get(clockKey);
      if (cached !== undefined && now() - cached.at < DAYS_CACHE_MS) return cached.days;
      const days = await selectDays(pool, cameraId, clock.sqlZone).catch(unavailable);
      let perClock = daysCache.get(cameraId);
      if (perClock === undefined) daysCache.set(cameraId, (perClock = new Map()));
      perClock.set(clockKey, { days, at: now() });
      return days;
    },
    invalidate: (cameraId) => void daysCache.delete(cameraId),
  };
}
