// Tests for the throw-away PostgreSQL cluster helper (testing/src/postgres.ts): lifecycle, freeze/thaw, and cleanup when the owner dies.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import pg from 'pg';
import { startTestPostgres } from '../src/postgres.js';
import { processesMatching, waitUntil } from '../src/processes.js';

function client(url: string, extra: Omit<pg.ClientConfig, 'connectionString'> = {}): pg.Client {
  const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000, ...extra });
  c.on('error', () => undefined);
  return c;
}

async function queryOnce<T extends pg.QueryResultRow>(url: string, sql: string): Promise<T[]> {
  const c = client(url);
  await c.connect();
  try {
    return (await c.query<T>(sql)).rows;
  } finally {
    await c.end();
  }
}

test('a throw-away cluster starts, stops, restarts on its port, freezes, thaws and is destroyed', { timeout: 30_000 }, async (t) => {
  const started = Date.now();
  const db = await startTestPostgres();
  t.after(() => db.destroy());
  t.diagnostic(`startup took ${Date.now() - started} ms`);
  const root = dirname(db.dataDir);

  assert.match(db.url, new RegExp(`^postgres://\\w+@127\\.0\\.0\\.1:${db.port}/vigil_test$`));
  assert.ok(existsSync(db.dataDir));
  assert.deepEqual(await queryOnce(db.url, 'select 1 as one'), [{ one: 1 }]);

  const url = await db.createDatabase('postgres_helper_test');
  assert.equal(url, db.url.replace(/vigil_test$/, 'postgres_helper_test'));
  {
    const c = client(url);
    await c.connect();
    await c.query('create table cams (id int primary key, name text not null)');
    await c.query("insert into cams values (1, 'porch')");
    assert.deepEqual((await c.query('select current_database() as db')).rows, [{ db: 'postgres_helper_test' }]);
    await c.end();
  }

  // stop: connections are refused; stopping again is a no-op.
  await db.stop();
  await db.stop();
  await assert.rejects(client(url).connect(), (err: NodeJS.ErrnoException) => err.code === 'ECONNREFUSED');

  // start: same port, data survived.
  const port = db.port;
  await db.start();
  await db.start();
  assert.equal(db.port, port);
  assert.deepEqual(await queryOnce(url, 'select id, name from cams'), [{ id: 1, name: 'porch' }]);

  // freeze: an open connection's query and a new connection both hang until their client-side timeouts.
  const held = client(url, { query_timeout: 1000 });
  await held.connect();
  db.freeze();
  db.freeze();
  const procs = await processesMatching(db.dataDir);
  assert.ok(procs.length > 0 && procs.every((p) => p.state.startsWith('T')), `postmaster stopped: ${JSON.stringify(procs)}`);
  let t0 = Date.now();
  await assert.rejects(held.query('select 1'), /Query read timeout/);
  assert.ok(Date.now() - t0 >= 900);
  t0 = Date.now();
  await assert.rejects(client(url, { connectionTimeoutMillis: 1000 }).connect(), /timeout/i);
  assert.ok(Date.now() - t0 >= 900);

  // thaw: new queries work again.
  db.thaw();
  db.thaw();
  assert.deepEqual(await queryOnce(url, 'select count(*)::int as n from cams'), [{ n: 1 }]);
  await held.end();

  // destroy: data dir gone, no process mentions it.
  await db.destroy();
  await db.destroy();
  assert.equal(existsSync(db.dataDir), false);
  assert.equal(existsSync(root), false);
  assert.deepEqual(await processesMatching(root), []);
  assert.deepEqual(await processesMatching('postgres_helper_test'), []);
  await assert.rejects(db.start(), /destroyed/);
});

/** Runs a Node process that starts a cluster, prints its data dir, and then ends as `how` says. */
function orphanScenario(how: 'exit' | 'sigkill' | 'sigterm'): Promise<string> {
  const moduleUrl = new URL('../src/postgres.js', import.meta.url).href;
  const script = `
    const { startTestPostgres } = await import(${JSON.stringify(moduleUrl)});
    const db = await startTestPostgres();
    db.freeze();
    console.log(db.dataDir);
    if (${JSON.stringify(how)} === 'exit') process.exit(0);
    setInterval(() => {}, 1000);
  `;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => {
      out += c;
      if (how !== 'exit' && out.includes('\n')) child.kill(how === 'sigkill' ? 'SIGKILL' : 'SIGTERM');
    });
    child.stderr.setEncoding('utf8').on('data', (c: string) => (err += c));
    child.once('error', reject);
    child.once('close', () => {
      const dataDir = out.trim();
      if (dataDir === '') reject(new Error(`scenario ${how} printed no data dir; stderr:\n${err}`));
      else resolve(dataDir);
    });
  });
}

for (const how of ['exit', 'sigkill', 'sigterm'] as const) {
  test(`a frozen cluster whose owner ends without destroy (${how}) is shut down and removed`, { timeout: 20_000 }, async () => {
    const dataDir = await orphanScenario(how);
    const root = dirname(dataDir);
    await waitUntil(async () => !existsSync(root) && (await processesMatching(root)).length === 0, 10_000, `cleanup of ${root}`, 50);
  });
}
