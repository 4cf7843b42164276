// Applies a batch of outbox entries to the recordings table in one transaction, in order.
import type pg from 'pg';
import type { OutboxEntry } from './outbox.js';
import { withClient } from './pool.js';
import { deleteRecordings, insertRecordings, type RecordingRow } from './recordings-repository.js';

async function applyInOrder(client: pg.PoolClient, entries: readonly OutboxEntry[]): Promise<void> {
  let i = 0;
  while (i < entries.length) {
    const op = (entries[i] as OutboxEntry).op;
    // Consecutive entries of one kind go in one statement; the order between kinds is kept.
    const run: OutboxEntry[] = [];
    while (i < entries.length && (entries[i] as OutboxEntry).op === op) run.push(entries[i++] as OutboxEntry);
    if (op === 'insert') {
      await insertRecordings(client, run.map((e) => (e as { row: RecordingRow }).row));
    } else {
      const byNode = new Map<string, string[]>();
      for (const e of run as Array<{ node_name: string; filename: string }>) byNode.set(e.node_name, [...(byNode.get(e.node_name) ?? []), e.filename]);
      for (const [node, files] of byNode) await deleteRecordings(client, node, files);
    }
  }
}

export async function deliverOutboxBatch(pool: pg.Pool, entries: readonly OutboxEntry[]): Promise<void> {
  await withClient(pool, async (client) => {
    try {
      await client.query('BEGIN');
      await applyInOrder(client, entries);
      await client.query('COMMIT');
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    }
  });
}
