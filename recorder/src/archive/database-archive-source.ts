// Archive source of a node with a database: closed segments and days from the recordings table.
import type pg from 'pg';
import { selectDays, selectOverlapping } from '../db/recordings-repository.js';
import { ArchiveIndexUnavailableError } from './archive-errors.js';
import type { ArchiveSource } from './segment-listing.js';

export function databaseArchiveSource(pool: pg.Pool): ArchiveSource {
  const unavailable = (err: unknown): never => {
    throw new ArchiveIndexUnavailableError(`the recordings table cannot be read: ${(err as Error).message}`);
  };
  return {
    closedSegments: (cameraId, fromMs, toMs) => selectOverlapping(pool, cameraId, fromMs, toMs).catch(unavailable),
    days: (cameraId, clock) => selectDays(pool, cameraId, clock.sqlZone).catch(unavailable),
  };
}
