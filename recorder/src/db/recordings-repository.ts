// SQL of the recordings table: idempotent batch writes, the window query and days from the hourly rollup.
import type pg from 'pg';
import type { ClosedSegment } from '../recording/closed-segment.js';

export interface RecordingRow {
  camera_id: string;
  node_name: string;
  filename: string;
  /** ISO 8601 instants. */
  start_time: string;
  end_time: string;
  sequence: number;
  size: number;
  mtime: number;
}

export function rowFromSegment(nodeName: string, s: ClosedSegment): RecordingRow {
  return {
    camera_id: s.cameraId,
    node_name: nodeName,
    filename: s.filename,
    start_time: s.start.toISOString(),
    end_time: s.end.toISOString(),
    sequence: s.sequence,
    size: s.size,
    mtime: s.mtime,
  };
}

/** Longest a segment can last; bounds the index range of the window query. */
const MAX_SEGMENT_INTERVAL = '6 hours';

export type Queryable = Pick<pg.Pool, 'query'> | Pick<pg.PoolClient, 'query'>;

/** Inserts rows; a row already there (same node and file) is left as it is, so a replay doubles nothing. */
export async function insertRecordings(db: Queryable, rows: readonly RecordingRow[]): Promise<number> {
  if (rows.length === 0) return 0;
  const res = await db.query(
    `INSERT INTO recordings (camera_id, node_name, filename, start_time, end_time, sequence, size, mtime)
     SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::timestamptz[], $5::timestamptz[], $6::bigint[], $7::bigint[], $8::bigint[])
     ON CONFLICT (node_name, filename) DO NOTHING`,
    [
      rows.map((r) => r.camera_id),
      rows.map((r) => r.node_name),
      rows.map((r) => r.filename),
      rows.map((r) => r.start_time),
      rows.map((r) => r.end_time),
      rows.map((r) => r.sequence),
      rows.map((r) => r.size),
      rows.map((r) => r.mtime),
    ],
  );
  return res.rowCount ?? 0;
}

export async function deleteRecordings(db: Queryable, nodeName: string, filenames: readonly string[]): Promise<number> {
  if (filenames.length === 0) return 0;
  const res = await db.query('DELETE FROM recordings WHERE node_name = $1 AND filename = ANY($2::text[])', [nodeName, filenames]);
  return res.rowCount ?? 0;
}

/** Closed segments of every node overlapping [from, to), ordered by start then sequence. */
export async function selectOverlapping(db: Queryable, cameraId: string, fromMs: number, toMs: number): Promise<ClosedSegment[]> {
  // Times as epoch milliseconds: a number parses far faster than a timestamp text (1,440 rows a day).
  const res = await db.query<{ filename: string; start_ms: number; end_ms: number; sequence: string; size: string; mtime: string }>(
    `SELECT filename, (extract(epoch FROM start_time) * 1000)::float8 AS start_ms, (extract(epoch FROM end_time) * 1000)::float8 AS end_ms,
            sequence, size, mtime FROM recordings
     WHERE camera_id = $1 AND start_time < $3 AND end_time > $2 AND start_time > $2::timestamptz - interval '${MAX_SEGMENT_INTERVAL}'
     ORDER BY start_time, sequence`,
    [cameraId, new Date(fromMs).toISOString(), new Date(toMs).toISOString()],
  );
  return res.rows.map((r) => ({
    cameraId,
    filename: r.filename,
    start: new Date(r.start_ms),
    end: new Date(r.end_ms),
    sequence: Number(r.sequence),
    size: Number(r.size),
    mtime: Number(r.mtime),
  }));
}

/**
 * Days holding recordings: each hour bucket contributes the day of its earliest and of its
 * latest recorded instant, on a fixed offset (minutes) or in an IANA zone.
 */
export async function selectDays(db: Queryable, cameraId: string, zone: { offsetMinutes: number } | { zone: string }): Promise<string[]> {
  const local = 'offsetMinutes' in zone ? `(v.x AT TIME ZONE 'UTC') + make_interval(mins => $2::int)` : `(v.x AT TIME ZONE $2::text)`;
  // Distinct dates first, formatted after: at most 366 strings a camera-year instead of 17,520.
  const res = await db.query<{ d: string }>(
    `SELECT to_char(d, 'YYYY-MM-DD') AS d FROM (
       SELECT DISTINCT (${local})::date AS d
       FROM recording_hours, LATERAL (VALUES (first_start), (greatest(first_start, last_end - interval '1 millisecond'))) AS v(x)
       WHERE camera_id = $1
     ) AS days
     ORDER BY days.d`,
    [cameraId, 'offsetMinutes' in zone ? zone.offsetMinutes : zone.zone],
  );
  return res.rows.map((r) => r.d);
}
