// Sequence numbers keep rising per camera: across restarts, when the stored number is lost, and under concurrent calls.
import assert from 'node:assert/strict';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { SequenceStore } from '../../src/recording/sequence-store.js';
import { tempDir } from '@vigil/testing/temp-dir';

test('numbers rise per camera and continue after a restart', async (t) => {
  const dir = await tempDir(t);
  const work = join(dir, 'work');
  const rec = join(dir, 'rec');
  const a = new SequenceStore(work, rec);
  assert.deepEqual([await a.next('door'), await a.next('door'), await a.next('yard')], [1, 2, 1]);
  await a.flush();
  const b = new SequenceStore(work, rec);
  assert.equal(await b.next('door'), 3);
  assert.equal(await b.next('yard'), 2);
});

test('a lost or stale stored number is recovered from the newest files on disk (.part included)', async (t) => {
  const dir = await tempDir(t);
  const work = join(dir, 'work');
  const rec = join(dir, 'rec');
  const a = new SequenceStore(work, rec);
  await a.next('door');
  await a.flush();
  await mkdir(join(rec, 'door', '2026-11-22'), { recursive: true });
  await mkdir(join(rec, 'door', '2026-11-23'), { recursive: true });
  await writeFile(join(rec, 'door', '2026-11-22', 'door_20261122T235900Z_40.mp4'), '');
  await writeFile(join(rec, 'door', '2026-11-23', 'door_20261123T000100Z_41.mp4.part'), '');
  assert.equal(await new SequenceStore(work, rec).next('door'), 42, 'the stored 1 is stale: the disk says 41');
  await rm(join(work, 'sequences'), { recursive: true, force: true });
  assert.equal(await new SequenceStore(work, rec).next('door'), 42, 'the stored number lost: the disk still says 41');
});

test('concurrent first calls for one camera hand out distinct numbers', async (t) => {
  const dir = await tempDir(t);
  const store = new SequenceStore(join(dir, 'work'), join(dir, 'rec'));
  const got = await Promise.all(Array.from({ length: 20 }, () => store.next('cam')));
  assert.deepEqual([...got].sort((x, y) => x - y), Array.from({ length: 20 }, (_, i) => i + 1));
});
