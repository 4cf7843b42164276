// Recording with PostgreSQL: rows through the outbox, cameras from the table, listing from recordings, outages.
import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import pg from 'pg';
import { waitUntil } from '@vigil/testing/processes';
import { startTestPostgres } from '@vigil/testing/postgres';
import { startRecorderProcess } from '../support/recorder-process.js';
import { startRtspCamera } from '@vigil/testing/rtsp-camera';
import { tempDir } from '@vigil/testing/temp-dir';
import { getJson, segmentFiles } from './helpers.js';

interface Listing {
  archive: Array<{ filename: string; is_open: boolean; sequence: number }>;
  days: string[];
}

test('with PostgreSQL: rows through the outbox, survive an outage exactly once; cameras follow the table', { timeout: 180_000 }, async (t) => {
  const dir = await tempDir(t);
  const pgServer = await startTestPostgres();
  t.after(() => pgServer.destroy());
  const url = await pgServer.createDatabase('vigil_outage');
  const camera = await startRtspCamera({ width: 320, height: 240, fps: 25, gop: 25 });
  t.after(() => camera.stop());
  const rec = await startRecorderProcess({
    dir,
    config: {
      nodeName: 'node-db',
      auth: { disabled: true },
      stall_seconds: 4,
      record: { segment_seconds: 2 },
      database: { url, camera_poll_seconds: 1, statement_timeout_ms: 2000 },
      cameras: [{ id: 'db-cam', source: camera.url }],
    },
  });
  t.after(() => rec.stop());
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => undefined); // the server is stopped under it on purpose
  await client.connect();
  t.after(() => client.end());
  const rows = async (): Promise<string[]> => (await client.query<{ filename: string }>("SELECT filename FROM recordings WHERE camera_id = 'db-cam' ORDER BY filename")).rows.map((r) => r.filename);

  // Migrations created the tables; closed segments arrive as rows.
  await waitUntil(async () => (await rows()).length >= 2, 30_000, 'two recordings rows');
  const listing = await getJson(`${rec.url}/api/archive/db-cam/segments`);
  assert.equal(listing.status, 200);
  const body = listing.body as Listing;
  assert.equal(body.archive.filter((s) => s.is_open).length, 1, 'the open segment is added to the rows');
  assert.ok(body.archive.filter((s) => !s.is_open).length >= 2);
  assert.equal(body.days.length, 1);

  // A camera row for this node starts recording within 10 s; a row for another node is ignored.
  await client.query("INSERT INTO cameras (id, source, node_name) VALUES ('db-row', 'testsrc:size=320x240&rate=25&gop=25&bitrate=200k', 'node-db'), ('elsewhere', 'testsrc:', 'node-other')");
  await waitUntil(async () => (await getJson(`${rec.url}/api/archive/db-row/current`)).status === 200, 10_000, 'the inserted camera records');
  assert.equal((await getJson(`${rec.url}/api/archive/elsewhere/current`)).status, 404);
  await client.query("DELETE FROM cameras WHERE id = 'db-row'");
  await waitUntil(async () => (await getJson(`${rec.url}/api/archive/db-row/current`)).status === 404, 10_000, 'the deleted camera stops');

  // Outage: the listing answers 503 (never an empty archive) and recording goes on into the outbox.
  await pgServer.stop();
  const during = await getJson(`${rec.url}/api/archive/db-cam/segments`);
  assert.equal(during.status, 503);
  assert.equal((during.body as { error: { code: string } }).error.code, 'archive_index_unavailable');
  const filesAtOutage = (await segmentFiles(rec.recordPath)).filter((f) => f.startsWith('db-cam/')).length;
  await waitUntil(async () => (await segmentFiles(rec.recordPath)).filter((f) => f.startsWith('db-cam/')).length >= filesAtOutage + 3, 30_000, 'segments keep closing during the outage');
  await waitUntil(async () => (await readdir(join(rec.workDir, 'outbox'))).filter((n) => n.endsWith('.json')).length >= 2, 10_000, 'rows waiting in the outbox');
  assert.equal((await getJson(`${rec.url}/api/health/live`)).status, 200);

  await pgServer.start();
  await client.end().catch(() => undefined);
  const again = new pg.Client({ connectionString: url });
  again.on('error', () => undefined); // cleanup stops the server before this client ends
  await again.connect();
  t.after(() => again.end());
  // Stop the camera so the set of closed files is final, then compare disk and table.
  await getJson(`${rec.url}/api/health/live`);
  const stop = await fetch(`${rec.url}/cameras/stop`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ id: 'db-cam' }) });
  assert.equal(stop.status, 200);
  const onDisk = (await segmentFiles(rec.recordPath)).filter((f) => f.startsWith('db-cam/'));
  await waitUntil(async () => (await readdir(join(rec.workDir, 'outbox'))).filter((n) => n.endsWith('.json')).length === 0, 40_000, 'the outbox drains');
  const res = await again.query<{ filename: string; n: string }>("SELECT filename, count(*) AS n FROM recordings WHERE camera_id = 'db-cam' GROUP BY filename ORDER BY filename");
  assert.deepEqual(res.rows.map((r) => r.filename), onDisk, 'every closed segment, including those of the outage, is in recordings');
  assert.ok(res.rows.every((r) => r.n === '1'), 'none doubled');
  const after = await getJson(`${rec.url}/api/archive/db-cam/segments`);
  assert.equal(after.status, 200);
  assert.equal((after.body as Listing).archive.length, onDisk.length);
});

test('a node name that matches no camera row is no error: it stays healthy and says so', { timeout: 60_000 }, async (t) => {
  const dir = await tempDir(t);
  const pgServer = await startTestPostgres();
  t.after(() => pgServer.destroy());
  const url = await pgServer.createDatabase('vigil_names');
  const rec = await startRecorderProcess({ dir, config: { nodeName: 'node-typo', auth: { disabled: true }, database: { url, camera_poll_seconds: 1 }, cameras: [] } });
  t.after(() => rec.stop());
  const warning = await rec.waitForLog((l) => typeof l.msg === 'string' && l.msg.includes('no row of the cameras table has node_name = "node-typo"'));
  assert.equal(warning.level, 40);
  assert.equal((await getJson(`${rec.url}/api/health/live`)).status, 200);
  assert.deepEqual((await getJson(`${rec.url}/api/archive/anything/segments`)).body, { archive: [], days: [] });
});
