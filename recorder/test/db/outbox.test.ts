// The durable outbox: entries survive a process that stops before delivery, arrive in order, once, and wait out an outage.
import assert from 'node:assert/strict';
import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { DurableOutbox, type OutboxEntry } from '../../src/db/outbox.js';
import { tempDir } from '@vigil/testing/temp-dir';
import { testLogger } from '../support/fakes.js';

const del = (filename: string): OutboxEntry => ({ op: 'delete', node_name: 'n1', filename });

test('entries written before a stop are delivered by the next process, in append order, and deleted only after delivery', async (t) => {
  const dir = await tempDir(t);
  const first = new DurableOutbox({ workDir: dir, log: testLogger().log, deliver: async () => Promise.reject(new Error('database down')) });
  await first.open();
  for (const f of ['a', 'b', 'c']) await first.append(del(f));
  first.close();
  assert.equal((await readdir(join(dir, 'outbox'))).filter((n) => n.endsWith('.json')).length, 3, 'synced to disk while the database is down');

  const delivered: string[] = [];
  const second = new DurableOutbox({
    workDir: dir,
    log: testLogger().log,
    batchSize: 2,
    deliver: async (entries) => {
      for (const e of entries) delivered.push(e.op === 'delete' ? e.filename : '?');
    },
  });
  await second.open();
  assert.equal(second.depth, 3);
  assert.equal(await second.drain(5000), true);
  assert.deepEqual(delivered, ['a', 'b', 'c']);
  assert.equal(second.depth, 0);
  assert.deepEqual((await readdir(join(dir, 'outbox'))).filter((n) => n.endsWith('.json')), []);
  second.close();
});

test('a failed delivery is retried with the same entries until it succeeds; nothing is lost or skipped', async (t) => {
  const dir = await tempDir(t);
  const { log, text } = testLogger();
  let failures = 2;
  const attempts: string[][] = [];
  const outbox = new DurableOutbox({
    workDir: dir,
    log,
    deliver: async (entries) => {
      attempts.push(entries.map((e) => (e.op === 'delete' ? e.filename : '?')));
      if (failures-- > 0) throw new Error('connection refused');
    },
  });
  await outbox.open();
  t.after(() => outbox.close());
  await outbox.append(del('x'));
  assert.equal(await outbox.drain(10_000), true);
  assert.deepEqual(attempts.at(-1), ['x']);
  assert.ok(attempts.length >= 3, `retried (${attempts.length} attempts)`);
  assert.equal(text().split('\n').filter((l) => l.includes('database unreachable')).length, 1, 'the outage is logged once, not per retry');
  assert.match(text(), /database reachable again/);
  // Counted per failed attempt (vigil_outbox_delivery_errors_total), while the log says it once.
  assert.equal(outbox.deliveryErrors, 2);
});

test('an unreadable entry is set aside and the others are delivered', async (t) => {
  const dir = await tempDir(t);
  const delivered: OutboxEntry[] = [];
  const outbox = new DurableOutbox({ workDir: dir, log: testLogger().log, deliver: async (entries) => void delivered.push(...entries) });
  await outbox.open();
  t.after(() => outbox.close());
  await writeFile(join(dir, 'outbox', '000000000000001-000000000.json'), '{ not json');
  await outbox.append(del('good'));
  assert.equal(await outbox.drain(5000), true);
  assert.deepEqual(delivered, [del('good')]);
  assert.ok((await readdir(join(dir, 'outbox'))).some((n) => n.endsWith('.bad')), 'kept aside for a human');
});
