// The in-memory index: overlap queries, ordering, and days on any clock from the hourly rollup.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fixedOffsetClock } from '../../src/archive/day-clock.js';
import { SegmentIndex } from '../../src/archive/segment-index.js';
import { segmentRelativePath } from '../../src/recording/segment-name.js';

const MIN = 60_000;

function seg(cameraId: string, startMs: number, minutes: number, sequence: number) {
  return { cameraId, filename: segmentRelativePath(cameraId, new Date(startMs), sequence), start: new Date(startMs), end: new Date(startMs + minutes * MIN), sequence, size: 10, mtime: 0 };
}

function days(index: SegmentIndex, cameraId: string, offset: number): string[] {
  return index.days(cameraId, fixedOffsetClock(offset), `o${offset}`);
}

test('overlap includes a segment that began before from, excludes one that ends exactly at from', () => {
  const idx = new SegmentIndex();
  const t0 = Date.UTC(2026, 0, 1, 10, 0, 0);
  for (let i = 0; i < 5; i++) idx.add(seg('c', t0 + i * 10 * MIN, 10, i + 1));
  const got = idx.overlapping('c', t0 + 15 * MIN, t0 + 30 * MIN).map((s) => s.sequence);
  assert.deepEqual(got, [2, 3], 'segment 2 (10:10–10:20) began before from=10:15; segment 4 starts at to');
  assert.deepEqual(idx.overlapping('c', t0 + 10 * MIN, t0 + 11 * MIN).map((s) => s.sequence), [2]);
  assert.deepEqual(idx.overlapping('other', 0, Number.MAX_SAFE_INTEGER), []);
});

test('out-of-order adds are kept in start order, and a re-added sequence replaces the old record', () => {
  const idx = new SegmentIndex();
  const t0 = Date.UTC(2026, 0, 1);
  idx.add(seg('c', t0 + 20 * MIN, 10, 3));
  idx.add(seg('c', t0, 10, 1));
  idx.add(seg('c', t0 + 10 * MIN, 10, 2));
  idx.add({ ...seg('c', t0 + 10 * MIN, 10, 2), size: 99 });
  assert.deepEqual(idx.segments('c').map((s) => [s.sequence, s.size]), [[1, 10], [2, 99], [3, 10]]);
});

test('re-adding the only segment of a camera (walk after writer) keeps it', () => {
  const idx = new SegmentIndex();
  const s = seg('solo', Date.UTC(2026, 0, 1), 1, 1);
  idx.add(s);
  idx.add({ ...s, size: 20 });
  assert.deepEqual(idx.segments('solo').map((x) => x.size), [20]);
  assert.equal(idx.overlapping('solo', 0, Date.UTC(2027, 0, 1)).length, 1);
});

test('days follow the viewer offset: half-hour, 45-minute and extreme offsets, across local midnight', () => {
  const idx = new SegmentIndex();
  // Recordings 2026-03-10 18:00–19:00 UTC and 2026-03-12 23:50–2026-03-13 00:10 UTC.
  idx.add(seg('c', Date.UTC(2026, 2, 10, 18, 0), 60, 1));
  idx.add(seg('c', Date.UTC(2026, 2, 12, 23, 50), 20, 2));
  assert.deepEqual(days(idx, 'c', 0), ['2026-03-10', '2026-03-12', '2026-03-13']);
  // UTC+5:30: 18:00 UTC = 23:30 local, so the first hour spans the 10th and the 11th.
  assert.deepEqual(days(idx, 'c', 330), ['2026-03-10', '2026-03-11', '2026-03-13']);
  // UTC+5:45 (Nepal): 18:14 UTC is local midnight; 23:50–00:10 UTC is 05:35–05:55 on the 13th.
  assert.deepEqual(days(idx, 'c', 345), ['2026-03-10', '2026-03-11', '2026-03-13']);
  // UTC+14 and UTC-14: the extremes.
  assert.deepEqual(days(idx, 'c', 840), ['2026-03-11', '2026-03-13']);
  assert.deepEqual(days(idx, 'c', -840), ['2026-03-10', '2026-03-12']);
  // UTC-9:30: 23:50 UTC is 14:20 local on the 12th.
  assert.deepEqual(days(idx, 'c', -570), ['2026-03-10', '2026-03-12']);
});

test('a minute-exact boundary: a segment ending at local midnight does not add the next day', () => {
  const idx = new SegmentIndex();
  // 17:30–18:30 UTC = 23:00–24:00 at UTC+5:30 … ends exactly at local midnight.
  idx.add(seg('c', Date.UTC(2026, 2, 10, 17, 30), 60, 1));
  assert.deepEqual(days(idx, 'c', 330), ['2026-03-10']);
  // One more minute and the next local day has a recording.
  idx.add(seg('c', Date.UTC(2026, 2, 10, 18, 30), 1, 2));
  assert.deepEqual(days(idx, 'c', 330), ['2026-03-10', '2026-03-11']);
});

test('removing segments updates days and overlap (retention)', () => {
  const idx = new SegmentIndex();
  const a = seg('c', Date.UTC(2026, 2, 10, 12), 30, 1);
  const b = seg('c', Date.UTC(2026, 2, 10, 12, 30), 60, 2);
  const c = seg('c', Date.UTC(2026, 2, 11, 12), 10, 3);
  for (const s of [a, b, c]) idx.add(s);
  assert.equal(idx.remove('c', a.filename), true);
  assert.equal(idx.remove('c', a.filename), false);
  assert.deepEqual(days(idx, 'c', 0), ['2026-03-10', '2026-03-11']);
  idx.remove('c', b.filename);
  assert.deepEqual(days(idx, 'c', 0), ['2026-03-11']);
  // With b gone, 12:00 UTC of the 10th is no longer a midnight at UTC-12 either.
  assert.deepEqual(days(idx, 'c', -720), ['2026-03-11']);
  idx.remove('c', c.filename);
  assert.deepEqual(days(idx, 'c', 0), []);
  assert.deepEqual(idx.cameras(), []);
});

test('a year of one-minute segments answers a day and the days quickly', () => {
  const idx = new SegmentIndex();
  const t0 = Date.UTC(2025, 0, 1);
  for (let i = 0; i < 525_600; i++) idx.add(seg('y', t0 + i * MIN, 1, i + 1));
  const day = idx.overlapping('y', Date.UTC(2025, 5, 1), Date.UTC(2025, 5, 2));
  assert.equal(day.length, 1440);
  assert.equal(days(idx, 'y', 60).length, 366, 'UTC+1 dates the last minutes of the year on 2026-01-01');
  assert.equal(days(idx, 'y', 0).length, 365);
});
