// Days and windows from the recordings table: the hourly rollup kept by triggers, on any viewer clock.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import pg from 'pg';
import { segmentRelativePath } from '../../src/recording/segment-name.js';
import { startTestPostgres } from '@vigil/testing/postgres';
import { waitUntil } from '@vigil/testing/processes';
import { startRecorderProcess } from '../support/recorder-process.js';
import { tempDir } from '@vigil/testing/temp-dir';
import { getJson } from './helpers.js';

const S = (iso: string): number => Date.parse(iso) / 1000;

test('database mode: windows, overlap and days with half-hour, 45-minute and extreme offsets; deletes update days', { timeout: 60_000 }, async (t) => {
  const dir = await tempDir(t);
  const server = await startTestPostgres();
  t.after(() => server.destroy());
  const url = await server.createDatabase('vigil_days');
  const rec = await startRecorderProcess({ dir, config: { nodeName: 'n1', auth: { disabled: true }, database: { url }, cameras: [] } });
  t.after(() => rec.stop());
  await rec.waitForLog((l) => l.msg === 'database migrations applied');
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => undefined);
  await client.connect();
  t.after(() => client.end());
  // 10-minute segments 2026-03-10 23:00 → 2026-03-11 01:00 UTC on node n1, one on the 14th at 12:00 from node n2.
  const insert = async (node: string, startIso: string, minutes: number, seq: number): Promise<string> => {
    const start = new Date(startIso);
    const filename = segmentRelativePath('dbcam', start, seq);
    await client.query('INSERT INTO recordings (camera_id, node_name, filename, start_time, end_time, sequence, size, mtime) VALUES ($1,$2,$3,$4,$5,$6,$7,$8)', [
      'dbcam', node, filename, start.toISOString(), new Date(start.getTime() + minutes * 60_000).toISOString(), seq, 1000, Math.floor(start.getTime() / 1000) + minutes * 60,
    ]);
    return filename;
  };
  for (let i = 0; i < 12; i++) await insert('n1', new Date(S('2026-03-10T23:00:00Z') * 1000 + i * 600_000).toISOString(), 10, i + 1);
  const lone = await insert('n2', '2026-03-14T12:00:00Z', 10, 1);
  const list = async (q: string): Promise<{ archive: Array<{ sequence: number; timestamp: string; filename: string }>; days: string[] }> => {
    const r = await getJson(`${rec.url}/api/archive/dbcam/segments${q}`);
    assert.equal(r.status, 200, q);
    return r.body as { archive: Array<{ sequence: number; timestamp: string; filename: string }>; days: string[] };
  };

  const w = await list(`?from=${S('2026-03-10T23:25:00Z')}&to=${S('2026-03-10T23:50:00Z')}&tz_offset_minutes=0`);
  assert.deepEqual(w.archive.map((s) => s.sequence), [3, 4, 5], 'overlap includes the segment that began before from');
  assert.deepEqual(w.days, ['2026-03-10', '2026-03-11', '2026-03-14']);
  assert.deepEqual((await list(`?from=${S('2026-03-10T00:00:00Z')}&tz_offset_minutes=345`)).days, ['2026-03-11', '2026-03-14']);
  assert.deepEqual((await list(`?from=${S('2026-03-10T00:00:00Z')}&tz_offset_minutes=-150`)).days, ['2026-03-10', '2026-03-14']);
  assert.deepEqual((await list(`?from=${S('2026-03-10T00:00:00Z')}&tz_offset_minutes=840`)).days, ['2026-03-11', '2026-03-15']);
  assert.deepEqual((await list(`?from=${S('2026-03-10T00:00:00Z')}&tz_offset_minutes=-840`)).days, ['2026-03-10', '2026-03-13']);
  // UTC+0:30: the last half hour of the 10th (23:00–23:30 UTC) is already the 11th; 00:30–01:00 UTC still the 11th.
  assert.deepEqual((await list(`?from=${S('2026-03-10T00:00:00Z')}&tz_offset_minutes=30`)).days, ['2026-03-10', '2026-03-11', '2026-03-14']);
  const k = await list(`?from=${S('2026-03-10T23:00:00Z')}&to=${S('2026-03-10T23:20:00Z')}&tz_offset_minutes=345`);
  assert.deepEqual(k.archive.map((s) => s.timestamp), ['2026-03-11T04:45:00+05:45', '2026-03-11T04:55:00+05:45']);
  // Rows of every node are listed.
  assert.deepEqual((await list(`?from=${S('2026-03-14T00:00:00Z')}&tz_offset_minutes=0`)).archive.map((s) => s.filename), [lone]);

  // Deleting rows (retention) updates the rollup: the 14th disappears, and so does the 11th (UTC) once its segments go.
  await client.query("DELETE FROM recordings WHERE node_name = 'n2'");
  await client.query("DELETE FROM recordings WHERE start_time >= '2026-03-11T00:00:00Z'");
  // Rows changed by someone else than this node's outbox show within the 10 s days cache.
  await waitUntil(async () => (await list(`?from=${S('2026-03-10T00:00:00Z')}&tz_offset_minutes=0`)).days.join() === '2026-03-10', 15_000, 'days to follow the deleted rows');
  assert.deepEqual((await list(`?from=${S('2026-03-10T00:00:00Z')}&tz_offset_minutes=60`)).days, ['2026-03-11'], 'at UTC+1 23:00–24:00 UTC is the 11th');
  const hours = await client.query<{ n: string }>("SELECT count(*) AS n FROM recording_hours WHERE camera_id = 'dbcam'");
  assert.equal(hours.rows[0]?.n, '1');
});
