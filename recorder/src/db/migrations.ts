// Versioned schema migrations, applied in order at start-up under an advisory lock.
import type pg from 'pg';
import { withClient } from './pool.js';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

const CAMERA_ID_CHECK = `'^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$'`;

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'cameras and recordings',
    sql: `
      CREATE TABLE cameras (
        id text PRIMARY KEY CHECK (id ~ ${CAMERA_ID_CHECK}),
        source text NOT NULL,
        ptz boolean NOT NULL DEFAULT false,
        snapuri text,
        node_name text NOT NULL,
        record_format text CHECK (record_format IN ('fmp4', 'mp4')),
        segment_seconds integer CHECK (segment_seconds BETWEEN 1 AND 3600),
        max_age_days double precision CHECK (max_age_days > 0),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX cameras_node_name ON cameras (node_name);

      CREATE TABLE recordings (
        id bigserial PRIMARY KEY,
        camera_id text NOT NULL,
        node_name text NOT NULL,
        filename text NOT NULL,
        start_time timestamptz NOT NULL,
        end_time timestamptz NOT NULL,
        sequence bigint NOT NULL,
        size bigint NOT NULL,
        mtime bigint NOT NULL,
        CONSTRAINT recordings_node_file UNIQUE (node_name, filename)
      );
      -- The listing: one camera, start before the window's end, bounded below.
      CREATE INDEX recordings_camera_start ON recordings (camera_id, start_time, sequence);
    `,
  },
  {
    version: 2,
    name: 'hourly occupancy rollup for days',
    sql: `
      -- One row per camera, node and UTC hour holding recordings, with the earliest and latest
      -- recorded instant inside the hour: enough to date days exactly on any clock.
      CREATE TABLE recording_hours (
        camera_id text NOT NULL,
        node_name text NOT NULL,
        hour timestamptz NOT NULL,
        segments integer NOT NULL,
        first_start timestamptz NOT NULL,
        last_end timestamptz NOT NULL,
        PRIMARY KEY (camera_id, hour, node_name)
      );

      CREATE FUNCTION vigil_hours_of(s timestamptz, e timestamptz) RETURNS SETOF timestamptz
      LANGUAGE sql IMMUTABLE AS $$
        SELECT generate_series(date_trunc('hour', s, 'UTC'), date_trunc('hour', greatest(s, e - interval '1 microsecond'), 'UTC'), interval '1 hour')
      $$;

      CREATE FUNCTION vigil_recording_hours_add() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO recording_hours AS rh (camera_id, node_name, hour, segments, first_start, last_end)
        SELECT NEW.camera_id, NEW.node_name, h, 1, greatest(NEW.start_time, h), least(greatest(NEW.end_time, NEW.start_time), h + interval '1 hour')
        FROM vigil_hours_of(NEW.start_time, NEW.end_time) AS h
        ON CONFLICT (camera_id, hour, node_name) DO UPDATE
          SET segments = rh.segments + 1,
              first_start = least(rh.first_start, EXCLUDED.first_start),
              last_end = greatest(rh.last_end, EXCLUDED.last_end);
        RETURN NULL;
      END $$;

      CREATE FUNCTION vigil_recording_hours_remove() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        h timestamptz;
        f timestamptz;
        l timestamptz;
      BEGIN
        FOR h IN SELECT vigil_hours_of(OLD.start_time, OLD.end_time) LOOP
          SELECT min(greatest(r.start_time, h)), max(least(r.end_time, h + interval '1 hour')) INTO f, l
          FROM recordings r
          WHERE r.camera_id = OLD.camera_id AND r.node_name = OLD.node_name
            AND r.start_time < h + interval '1 hour' AND r.end_time > h AND r.start_time > h - interval '1 day';
          IF f IS NULL THEN
            DELETE FROM recording_hours WHERE camera_id = OLD.camera_id AND node_name = OLD.node_name AND hour = h;
          ELSE
            UPDATE recording_hours SET segments = greatest(segments - 1, 1), first_start = f, last_end = greatest(f, l)
            WHERE camera_id = OLD.camera_id AND node_name = OLD.node_name AND hour = h;
          END IF;
        END LOOP;
        RETURN NULL;
      END $$;

      CREATE TRIGGER recordings_hours_add AFTER INSERT ON recordings FOR EACH ROW EXECUTE FUNCTION vigil_recording_hours_add();
      CREATE TRIGGER recordings_hours_remove AFTER DELETE ON recordings FOR EACH ROW EXECUTE FUNCTION vigil_recording_hours_remove();

      INSERT INTO recording_hours AS rh (camera_id, node_name, hour, segments, first_start, last_end)
      SELECT r.camera_id, r.node_name, h, count(*), min(greatest(r.start_time, h)), max(least(greatest(r.end_time, r.start_time), h + interval '1 hour'))
      FROM recordings r, vigil_hours_of(r.start_time, r.end_time) AS h
      GROUP BY r.camera_id, r.node_name, h;
    `,
  },
];

/** Applies the migrations not yet recorded in schema_migrations; returns the versions applied. */
export async function migrate(pool: pg.Pool, migrations: readonly Migration[] = MIGRATIONS): Promise<number[]> {
  return withClient(pool, async (client) => {
    const applied: number[] = [];
    try {
      // One migrating node at a time: the others wait here, then find nothing left to do.
      await client.query('SELECT pg_advisory_lock(7147001)');
      await client.query('CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())');
      const done = new Set((await client.query<{ version: number }>('SELECT version FROM schema_migrations')).rows.map((r) => r.version));
      for (const m of [...migrations].sort((a, b) => a.version - b.version)) {
        if (done.has(m.version)) continue;
        await client.query('BEGIN');
        try {
          await client.query(m.sql);
          await client.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [m.version, m.name]);
          await client.query('COMMIT');
          applied.push(m.version);
        } catch (err) {
          await client.query('ROLLBACK').catch(() => undefined);
          throw new Error(`migration ${m.version} (${m.name}) failed: ${(err as Error).message}`);
        }
      }
    } finally {
      await client.query('SELECT pg_advisory_unlock(7147001)').catch(() => undefined);
    }
    return applied;
  });
}
