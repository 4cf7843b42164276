// The work_dir lock: the kernel's (flock), held against a second taker, gone with its holder, and its loss is reported.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { tempDir } from '@vigil/testing/temp-dir';
import { WorkDirLock, WorkDirLockedError } from '../../src/process/work-dir-lock.js';

const ignoreLoss = { onLost: () => assert.fail('the lock was lost') };

test('a held lock refuses a second taker, naming the holder; released, it can be taken again', async (t) => {
  const dir = await tempDir(t);
  const lock = await WorkDirLock.take(dir, ignoreLoss);
  await assert.rejects(WorkDirLock.take(dir, ignoreLoss), (err: unknown) => err instanceof WorkDirLockedError && err.holder?.pid === process.pid);
  await lock.release();
  await (await WorkDirLock.take(dir, ignoreLoss)).release();
});

test('a lock file left behind by a recorder that is gone holds nothing, whatever it names', async (t) => {
  const dir = await tempDir(t);
  // Names a process that runs (this one) on this host: only the kernel's lock counts, not what the file says.
  await writeFile(join(dir, 'vigil.lock'), JSON.stringify({ pid: process.pid, start: '1', host: 'another-pod', boot: 'b', since: 'then' }));
  await (await WorkDirLock.take(dir, ignoreLoss)).release();
});

test('a lock held by another program (flock on the file) refuses the taker, which says it cannot name the holder', async (t) => {
  const dir = await tempDir(t);
  const file = join(dir, 'vigil.lock');
  await writeFile(file, '');
  const other = spawn('flock', ['--exclusive', '--close', file, 'sh', '-c', 'echo locked; exec sleep 60'], { stdio: ['ignore', 'pipe', 'inherit'] });
  t.after(() => other.kill('SIGKILL'));
  await once(other.stdout, 'data');
  await assert.rejects(WorkDirLock.take(dir, ignoreLoss), /in use by another vigil-recorder \(it has not written its name yet\)/);
  other.kill('SIGKILL');
  await once(other, 'exit');
  await (await WorkDirLock.take(dir, ignoreLoss)).release();
});

test('when the process that holds the lock for us is killed, the loss is reported once and another can take the lock', async (t) => {
  const dir = await tempDir(t);
  const losses: string[] = [];
  const lock = await WorkDirLock.take(dir, { onLost: (why) => losses.push(why) });
  const pid = lock.keeperPid;
  assert.ok(pid !== undefined);
  process.kill(pid, 'SIGKILL');
  const deadline = Date.now() + 5_000;
  while (losses.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  assert.equal(losses.length, 1);
  assert.match(losses[0] ?? '', new RegExp(`pid ${pid}\\) ended \\(SIGKILL\\)`));
  await lock.release();
  await (await WorkDirLock.take(dir, ignoreLoss)).release();
  assert.equal(losses.length, 1);
});

test('the signals of a terminal or a service manager do not end the lock: only its holder lets it go', async (t) => {
  const dir = await tempDir(t);
  const lock = await WorkDirLock.take(dir, ignoreLoss);
  for (const sig of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.kill(lock.keeperPid ?? -1, sig);
  await new Promise((r) => setTimeout(r, 300));
  await assert.rejects(WorkDirLock.take(dir, ignoreLoss), WorkDirLockedError);
  await lock.release();
});
