// The work_dir lock: held against a second taker, stale when its process is gone, or (held elsewhere) when no longer touched.
import assert from 'node:assert/strict';
import { readFile, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { tempDir } from '@vigil/testing/temp-dir';
import { WorkDirLock, WorkDirLockedError } from '../../src/process/work-dir-lock.js';

test('a held lock refuses a second taker, naming the holder; released, it can be taken again', async (t) => {
  const dir = await tempDir(t);
  const lock = await WorkDirLock.take(dir);
  await assert.rejects(WorkDirLock.take(dir), (err: unknown) => err instanceof WorkDirLockedError && err.holder.pid === process.pid);
  await lock.release();
  await (await WorkDirLock.take(dir)).release();
});

test('a lock whose process is gone (same host and boot, another start time) is stale', async (t) => {
  const dir = await tempDir(t);
  const held = await WorkDirLock.take(dir);
  const mine = JSON.parse(await readFile(join(dir, 'vigil.lock'), 'utf8')) as Record<string, unknown>;
  await held.release();
  await writeFile(join(dir, 'vigil.lock'), JSON.stringify({ ...mine, start: '1' }));
  await (await WorkDirLock.take(dir)).release();
});

test('a lock held on another host counts while it is touched, and is stale after 15 s without', async (t) => {
  const dir = await tempDir(t);
  const file = join(dir, 'vigil.lock');
  await writeFile(file, JSON.stringify({ pid: 1, start: '5', host: 'another-pod', boot: 'b', since: 'then' }));
  await assert.rejects(WorkDirLock.take(dir), /in use by another vigil-recorder \(pid 1 on another-pod/);
  const old = new Date(Date.now() - 60_000);
  await utimes(file, old, old);
  await (await WorkDirLock.take(dir)).release();
});
