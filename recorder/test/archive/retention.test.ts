// Retention: oldest segments go first, past the age limit or while free space is short, never the open file.
import assert from 'node:assert/strict';
import { mkdir, readdir, rename, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { pino } from 'pino';
import type { DiskSpace } from '../../src/archive/disk-space.js';
import { RetentionCleaner } from '../../src/archive/retention.js';
import { SegmentIndex } from '../../src/archive/segment-index.js';
import type { ClosedSegment } from '../../src/recording/closed-segment.js';
import { segmentRelativePath } from '../../src/recording/segment-name.js';
import { tempDir } from '@vigil/testing/temp-dir';
import { ManualClock } from '../support/fakes.js';

const NOW = Date.UTC(2026, 10, 22, 12, 0, 0);
const HOUR = 3_600_000;

async function addSegment(root: string, index: SegmentIndex, cameraId: string, hoursAgo: number, sequence: number, size = 1000): Promise<ClosedSegment> {
  const start = new Date(NOW - hoursAgo * HOUR);
  const filename = segmentRelativePath(cameraId, start, sequence);
  await mkdir(dirname(join(root, filename)), { recursive: true });
  await writeFile(join(root, filename), Buffer.alloc(size));
  const seg: ClosedSegment = { cameraId, filename, start, end: new Date(start.getTime() + 60_000), sequence, size, mtime: 0 };
  index.add(seg);
  return seg;
}

async function filesOf(root: string, cameraId: string): Promise<string[]> {
  const out: string[] = [];
  for (const day of await readdir(join(root, cameraId)).catch(() => [])) out.push(...(await readdir(join(root, cameraId, day))));
  return out.sort();
}

test('segments older than max_age_days are deleted, per camera limits, and logged', async (t) => {
  const root = await tempDir(t);
  const index = new SegmentIndex();
  for (let h = 0; h < 6; h++) {
    await addSegment(root, index, 'a', 20 + h * 12, h + 1);
    await addSegment(root, index, 'b', 20 + h * 12, h + 1);
  }
  const deleted: string[] = [];
  const logLines: string[] = [];
  const cleaner = new RetentionCleaner({
    recordPath: root,
    index,
    log: pino({}, { write: (l: string) => logLines.push(l) }),
    diskSpace: async (): Promise<DiskSpace> => ({ totalBytes: 1e12, freeBytes: 9e11 }),
    minFreePercent: 5,
    maxAgeDays: (id) => (id === 'a' ? 2 : undefined),
    onDeleted: (s, reason) => deleted.push(`${s.filename}:${reason}`),
    clock: new ManualClock(NOW),
  });
  const pass = await cleaner.run();
  // Camera a keeps segments younger than 48 h (20, 32, 44 h ago); b keeps everything.
  assert.equal(pass.deletedForAge, 3);
  assert.deepEqual(cleaner.deletions, { max_age: 3, min_free: 0 });
  assert.equal((await filesOf(root, 'a')).length, 3);
  assert.equal((await filesOf(root, 'b')).length, 6);
  assert.equal(index.segments('a').length, 3);
  assert.ok(deleted.every((d) => d.startsWith('a/') && d.endsWith(':max_age')));
  assert.equal(logLines.filter((l) => l.includes('segment deleted by retention')).length, 3);
  // Emptied day folders go too.
  for (const day of await readdir(join(root, 'a'))) assert.ok((await readdir(join(root, 'a', day))).length > 0);
});

test('under min_free_percent the oldest segments of all cameras go first, until enough is freed', async (t) => {
  const root = await tempDir(t);
  const index = new SegmentIndex();
  // Interleaved ages: camera x has the oldest, y the next, so fairness means alternating deletions.
  for (let i = 0; i < 5; i++) {
    await addSegment(root, index, 'x', 100 - i * 10, i + 1, 1000);
    await addSegment(root, index, 'y', 95 - i * 10, i + 1, 1000);
  }
  let free = 10_000;
  const order: string[] = [];
  const cleaner = new RetentionCleaner({
    recordPath: root,
    index,
    log: pino({ level: 'silent' }),
    diskSpace: async () => ({ totalBytes: 200_000, freeBytes: free }),
    minFreePercent: 7, // 14,000 bytes wanted: 4 segments of 1,000 must go
    maxAgeDays: () => undefined,
    onDeleted: (s) => {
      order.push(`${s.cameraId}${s.sequence}`);
      free += s.size;
    },
    clock: new ManualClock(NOW),
  });
  const pass = await cleaner.run();
  assert.equal(pass.deletedForSpace, 4);
  assert.deepEqual(order, ['x1', 'y1', 'x2', 'y2']);
  assert.equal((await filesOf(root, 'x')).length, 3);
  assert.equal((await filesOf(root, 'y')).length, 3);
});

test('the open segment is never a candidate: only indexed (closed) segments are deleted', async (t) => {
  const root = await tempDir(t);
  const index = new SegmentIndex();
  const closed = await addSegment(root, index, 'z', 10, 1);
  // The file being written exists on disk but is not in the index.
  const openName = segmentRelativePath('z', new Date(NOW - 60_000), 2);
  await writeFile(join(root, openName), Buffer.alloc(10));
  const cleaner = new RetentionCleaner({
    recordPath: root,
    index,
    log: pino({ level: 'silent' }),
    diskSpace: async () => ({ totalBytes: 100, freeBytes: 0 }),
    minFreePercent: 50,
    maxAgeDays: () => 0.0001,
    clock: new ManualClock(NOW),
  });
  await cleaner.run();
  const left = await filesOf(root, 'z');
  assert.deepEqual(left, [openName.split('/').pop()]);
  assert.equal(index.has('z', closed.sequence), false);
});

test('an unmounted disk (record_path missing) is not taken for deleted files: the index and the database keep every segment', async (t) => {
  const dir = await tempDir(t);
  const root = join(dir, 'recordings');
  const index = new SegmentIndex();
  for (let h = 0; h < 4; h++) await addSegment(root, index, 'a', 100 + h, h + 1);
  await rename(root, join(dir, 'unmounted'));
  const deleted: string[] = [];
  const cleaner = new RetentionCleaner({
    recordPath: root,
    index,
    log: pino({ level: 'silent' }),
    diskSpace: async (): Promise<DiskSpace> => ({ totalBytes: 1e12, freeBytes: 0 }),
    minFreePercent: 5,
    maxAgeDays: () => 1,
    onDeleted: (s) => deleted.push(s.filename),
    clock: new ManualClock(NOW),
  });
  const pass = await cleaner.run();
  assert.deepEqual(pass, { deletedForAge: 0, deletedForSpace: 0, freedBytes: 0 });
  assert.deepEqual(deleted, []);
  assert.equal(index.segments('a').length, 4);
  // Mounted again: the same pass deletes what is really past its age.
  await rename(join(dir, 'unmounted'), root);
  assert.equal((await cleaner.run()).deletedForAge, 4);
});
