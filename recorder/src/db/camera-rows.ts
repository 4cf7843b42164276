// Reads the cameras table rows assigned to a node.
import type pg from 'pg';
import type { CameraRow } from '../cameras/database-source.js';

export async function selectCameraRows(pool: pg.Pool, nodeName: string): Promise<CameraRow[]> {
  const res = await pool.query<CameraRow>(
    'SELECT id, source, ptz, snapuri, record_format, segment_seconds, max_age_days FROM cameras WHERE node_name = $1 ORDER BY id',
    [nodeName],
  );
  return res.rows;
}
