// Segment ends in the walk: from the media for copied files, cached per day folder, measured again when a file changes.
import assert from 'node:assert/strict';
import { copyFile, mkdir, open, stat, utimes, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { pino } from 'pino';
import { ArchiveCatalog } from '../../src/archive/archive-catalog.js';
import { fixedOffsetClock } from '../../src/archive/day-clock.js';
import { SegmentEndCache } from '../../src/archive/segment-end-cache.js';
import { SegmentEnds, type WalkedFile } from '../../src/archive/segment-ends.js';
import { SegmentIndex } from '../../src/archive/segment-index.js';
import { segmentRelativePath } from '../../src/recording/segment-name.js';
import { encodeFragmented, tempDir } from '../media/fixtures.js';

const X264 = ['-c:v', 'libx264', '-preset', 'ultrafast', '-g', '25'];
const log = pino({ level: 'silent' });

async function plantCopy(recordPath: string, source: string, cameraId: string, startIso: string, sequence: number): Promise<string> {
  const filename = segmentRelativePath(cameraId, new Date(startIso), sequence);
  const path = join(recordPath, filename);
  await mkdir(dirname(path), { recursive: true });
  await copyFile(source, path); // a copy without -p: its mtime is now
  return path;
}

test('a copy of an archive made without its mtimes: days and windows come from the media, mtime in the listing is the end', async (t) => {
  const dir = await tempDir(t);
  const recordPath = join(dir, 'recordings');
  const source = await encodeFragmented(dir, 'source.mp4', { seconds: 3, video: X264, size: '320x240' });
  await plantCopy(recordPath, source, 'yard', '2026-03-10T12:00:00Z', 1);
  await plantCopy(recordPath, source, 'yard', '2026-03-10T23:59:58Z', 2);
  const index = new SegmentIndex();
  await new ArchiveCatalog({ recordPath, index, log, isOpen: () => false }).startInitialWalk();
  assert.deepEqual(
    index.segments('yard').map((s) => [s.start.toISOString(), s.end.toISOString(), s.mtime]),
    [
      ['2026-03-10T12:00:00.000Z', '2026-03-10T12:00:03.000Z', Date.parse('2026-03-10T12:00:03Z') / 1000],
      ['2026-03-10T23:59:58.000Z', '2026-03-11T00:00:01.000Z', Date.parse('2026-03-11T00:00:01Z') / 1000],
    ],
  );
  // With the copy time as the end, both would reach today: every day since would be listed.
  assert.deepEqual(index.days('yard', fixedOffsetClock(0), 'utc'), ['2026-03-10', '2026-03-11']);
  assert.deepEqual(index.overlapping('yard', Date.parse('2026-03-11T00:00:02Z'), Date.parse('2026-03-12T00:00:00Z')), []);
});

test('ends are cached per day folder: a file measured once is not read again until its size or mtime changes', async (t) => {
  const dir = await tempDir(t);
  const recordPath = join(dir, 'recordings');
  const cache = new SegmentEndCache(join(dir, 'work'));
  const source = await encodeFragmented(dir, 'source.mp4', { seconds: 2, video: X264, size: '320x240' });
  const path = await plantCopy(recordPath, source, 'gate', '2026-04-01T08:00:00Z', 5);
  const st = await stat(path);
  const file = (s: { size: number; mtimeMs: number }): WalkedFile => ({ name: path.split('/').pop() as string, sequence: 5, startMs: Date.parse('2026-04-01T08:00:00Z'), size: s.size, mtimeMs: s.mtimeMs });
  const fresh = (): SegmentEnds => new SegmentEnds({ recordPath, cache, known: () => undefined });
  const measured = Date.parse('2026-04-01T08:00:02Z');
  assert.deepEqual(await fresh().endsOf('gate', '2026-04-01', [file(st)]), [measured]);

  // The same bytes count, garbage of the same size and mtime: the cached end stands (the media is not read again).
  const fh = await open(path, 'r+');
  await fh.write(Buffer.alloc(st.size, 0x61), 0, st.size, 0);
  await fh.close();
  await utimes(path, st.atime, st.mtime);
  const same = await stat(path);
  assert.deepEqual(await fresh().endsOf('gate', '2026-04-01', [file(same)]), [measured]);

  // Touched: measured again; garbage says nothing, so its mtime is the end.
  const touched = new Date(Date.parse('2026-04-01T08:00:30Z'));
  await utimes(path, touched, touched);
  assert.deepEqual(await fresh().endsOf('gate', '2026-04-01', [file(await stat(path))]), [touched.getTime()]);

  // What the index already knows (the writer closed it) is taken as it is, with no read at all.
  const known = new SegmentEnds({ recordPath, cache, known: () => ({ size: st.size, endMs: measured + 7 }) });
  assert.deepEqual(await known.endsOf('gate', '2026-04-01', [file(await stat(path))]), [measured + 7]);
});

test('files too small to hold media (an empty stub) end at their mtime and leave no cache behind', async (t) => {
  const dir = await tempDir(t);
  const recordPath = join(dir, 'recordings');
  const filename = segmentRelativePath('stub', new Date('2026-04-01T08:00:00Z'), 1);
  await mkdir(dirname(join(recordPath, filename)), { recursive: true });
  await writeFile(join(recordPath, filename), '');
  const end = new Date('2026-04-01T08:01:00Z');
  await utimes(join(recordPath, filename), end, end);
  const index = new SegmentIndex();
  const cache = new SegmentEndCache(join(dir, 'work'));
  await new ArchiveCatalog({ recordPath, index, log, isOpen: () => false, endCache: cache }).startInitialWalk();
  assert.equal(index.segments('stub')[0]?.end.toISOString(), end.toISOString());
  assert.equal((await cache.load('stub', '2026-04-01')).size, 0);
  await assert.rejects(stat(join(dir, 'work', 'archive-ends')), { code: 'ENOENT' });
});
