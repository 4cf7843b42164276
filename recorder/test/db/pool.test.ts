// A client checked out of the pool survives its server going away between two queries.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pino } from 'pino';
import { createPool, withClient } from '../../src/db/pool.js';
import { startTestPostgres } from '@vigil/testing/postgres';

test('the server stopping while a client is checked out is an error of the next query, not a crash', { timeout: 60_000 }, async (t) => {
  const server = await startTestPostgres();
  t.after(() => server.destroy());
  const pool = createPool({ url: server.url, statementTimeoutMs: 2000, log: pino({ level: 'silent' }) });
  t.after(() => pool.end().catch(() => undefined));
  const outcome = await withClient(pool, async (client) => {
    await client.query('SELECT 1');
    // The server terminates this idle, checked-out connection: pg emits 'error' outside any query.
    await server.stop();
    await new Promise((r) => setTimeout(r, 300));
    return client.query('SELECT 1').then(
      () => 'answered',
      (err: Error) => `failed: ${err.message}`,
    );
  });
  assert.match(outcome, /^failed: /);
  await server.start();
  // The broken client was destroyed, not returned: the pool hands out a working one.
  assert.equal((await pool.query<{ one: number }>('SELECT 1 AS one')).rows[0]?.one, 1);
});
