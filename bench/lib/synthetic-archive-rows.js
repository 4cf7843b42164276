// Benchmark "archive", database mode: the same synthetic archive as rows of the recorder's tables, generated in SQL,
// and a check that the row trigger and migration 2's backfill build the same hourly roll-up.
import { PER_DAY } from './synthetic-archive-files.js';

/** One camera's rows: start = shapeStart + i min, end = start + 60 s, sequence i + 1, size 0, mtime = end (what the walk derives). */
const INSERT_ROWS = `
INSERT INTO recordings (camera_id, node_name, filename, start_time, end_time, sequence, size, mtime)
SELECT $1::text, $2::text,
       $1::text || '/' || to_char(u, 'YYYY-MM-DD') || '/' || $1::text || '_' || to_char(u, 'YYYYMMDD"T"HH24MISS"Z"') || '_' || (i + 1) || '.mp4',
       s, s + interval '60 seconds', i + 1, 0, $3::bigint + i * 60 + 60
FROM generate_series(0, $4::int - 1) AS i,
     LATERAL (SELECT to_timestamp($3::bigint + i * 60) AS s) AS a,
     LATERAL (SELECT a.s AT TIME ZONE 'UTC' AS u) AS b`;

/** Migration 2's own backfill of recording_hours from recordings (the statement after its triggers). */
function backfillSql(MIGRATIONS) {
  const sql = MIGRATIONS.find((m) => m.version === 2)?.sql ?? '';
  const at = sql.lastIndexOf('INSERT INTO recording_hours');
  const stmt = at < 0 ? '' : sql.slice(at).trim();
  if (!/GROUP BY/.test(stmt) || !/FROM recordings r/.test(stmt)) throw new Error('could not find the recording_hours backfill in migration 2');
  return stmt;
}

/**
 * Checks on a scratch database that the row trigger and migration 2's backfill build the same recording_hours,
 * for regular one-minute segments and for irregular ones (hour-crossing, zero-length, long, overlapping).
 */
export async function checkRollupEquivalence({ pgServer, pg, MIGRATIONS, migrate, nodeName }) {
  const url = await pgServer.createDatabase('bench_rollup_check');
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  try {
    await migrate(pool);
    const start = Date.UTC(2025, 0, 1) / 1000;
    await pool.query(INSERT_ROWS, ['chk-a', nodeName, start, 2 * PER_DAY]);
    await pool.query(INSERT_ROWS, ['chk-b', nodeName, start + 3600 + 17, 300]);
    await pool.query(
      `INSERT INTO recordings (camera_id, node_name, filename, start_time, end_time, sequence, size, mtime)
       SELECT 'chk-c', $1, 'chk-c/x_' || i || '.mp4', to_timestamp($2::bigint + i * 97 + 3570), to_timestamp($2::bigint + i * 97 + 3570 + (i % 5) * 45 + (CASE WHEN i % 7 = 0 THEN 7200 ELSE 0 END)), i, 0, 0
       FROM generate_series(1, 400) AS i`,
      [nodeName, start],
    );
    await pool.query('CREATE TABLE via_trigger AS SELECT * FROM recording_hours');
    await pool.query('TRUNCATE recording_hours');
    await pool.query(backfillSql(MIGRATIONS));
    const { rows } = await pool.query(`SELECT
      (SELECT count(*) FROM via_trigger)::int AS trigger_rows,
      (SELECT count(*) FROM recording_hours)::int AS backfill_rows,
      (SELECT count(*) FROM ((SELECT * FROM via_trigger EXCEPT SELECT * FROM recording_hours) UNION ALL (SELECT * FROM recording_hours EXCEPT SELECT * FROM via_trigger)) d)::int AS mismatches`);
    return rows[0];
  } finally {
    await pool.end();
  }
}

/**
 * A database of its own holding `shape`'s segments as rows of `recordings` (and their recording_hours), loaded `how`:
 * 'bulk' (the trigger off, then migration 2's backfill) or 'trigger'. Resolves with its URL, timings and row counts.
 */
export async function loadDatabase({ pgServer, pg, MIGRATIONS, migrate, nodeName, shape, how }) {
  const url = await pgServer.createDatabase(`bench_${shape.name}`);
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  const t0 = performance.now();
  try {
    await migrate(pool); // the recorder's own migrations; the recorder then finds nothing to do
    if (how === 'bulk') await pool.query('ALTER TABLE recordings DISABLE TRIGGER recordings_hours_add');
    for (const camera of shape.cameras) await pool.query(INSERT_ROWS, [camera, nodeName, shape.start, shape.days * PER_DAY]);
    if (how === 'bulk') {
      await pool.query(backfillSql(MIGRATIONS));
      await pool.query('ALTER TABLE recordings ENABLE TRIGGER recordings_hours_add');
    }
    const loadMs = performance.now() - t0;
    await pool.query('VACUUM ANALYZE recordings');
    await pool.query('VACUUM ANALYZE recording_hours');
    const { rows } = await pool.query(`SELECT (SELECT count(*) FROM recordings)::int AS rows, (SELECT count(*) FROM recording_hours)::int AS hours,
      pg_total_relation_size('recordings')::bigint AS bytes, (SELECT filename FROM recordings WHERE camera_id = $1 AND sequence = 1) AS first_file`, [shape.cameras[0]]);
    return { url, loadMs, vacuumMs: performance.now() - t0 - loadMs, ...rows[0] };
  } finally {
    await pool.end();
  }
}
