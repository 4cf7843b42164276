// The segment listing over HTTP, walk mode: a synthetic archive on disk plus a camera recording now.
import assert from 'node:assert/strict';
import { copyFile, mkdir, rm, utimes, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { segmentRelativePath } from '../../src/recording/segment-name.js';
import { waitUntil } from '@vigil/testing/processes';
import { startRecorderProcess } from '../support/recorder-process.js';
import { tempDir } from '@vigil/testing/temp-dir';
import { getJson } from './helpers.js';
import { encodeFragmented } from '../media/fixtures.js';

interface Listing {
  archive: Array<{ timestamp: string; sequence: number; filename: string; size: number; mtime: number; is_open: boolean }>;
  days: string[];
}

const S = (iso: string): number => Date.parse(iso) / 1000;

/** Writes an empty segment file named for its start; its mtime (the walk's end time) is start + seconds. */
async function plant(recordPath: string, cameraId: string, startIso: string, seconds: number, sequence: number, bytes = 100): Promise<string> {
  const start = new Date(startIso);
  const rel = segmentRelativePath(cameraId, start, sequence);
  await mkdir(dirname(join(recordPath, rel)), { recursive: true });
  await writeFile(join(recordPath, rel), Buffer.alloc(bytes));
  const end = (start.getTime() + seconds * 1000) / 1000;
  await utimes(join(recordPath, rel), end, end);
  return rel;
}

test('listing rules in walk mode: windows, overlap, days on the viewer clock, ordering, errors', { timeout: 60_000 }, async (t) => {
  const dir = await tempDir(t);
  const recordPath = join(dir, 'recordings');
  // Archive of camera "arch": 10-minute segments on 2026-03-10 from 23:00 to 01:00 UTC (crossing UTC midnight),
  // plus one on 2026-03-14 12:00 UTC.
  let seq = 1;
  for (let i = 0; i < 12; i++) await plant(recordPath, 'arch', new Date(S('2026-03-10T23:00:00Z') * 1000 + i * 600_000).toISOString(), 600, seq++);
  await plant(recordPath, 'arch', '2026-03-14T12:00:00Z', 600, seq++);
  const rec = await startRecorderProcess({ dir, config: { auth: { disabled: true }, record: { segment_seconds: 60 }, cameras: [{ id: 'live-now', source: 'testsrc:size=320x240&rate=25&gop=25&bitrate=200k' }] } });
  t.after(() => rec.stop());
  const list = async (query: string, cam = 'arch'): Promise<{ status: number; body: Listing & { error?: { code: string; details?: { parameter?: string } } } }> => {
    const r = await getJson(`${rec.url}/api/archive/${cam}/segments${query}`);
    return { status: r.status, body: r.body as Listing & { error?: { code: string; details?: { parameter?: string } } } };
  };

  // Window with both bounds; a segment that began before `from` is included, one starting at `to` is not.
  const w = await list(`?from=${S('2026-03-10T23:25:00Z')}&to=${S('2026-03-10T23:50:00Z')}`);
  assert.equal(w.status, 200);
  assert.deepEqual(w.body.archive.map((s) => s.sequence), [3, 4, 5]);
  assert.ok(w.body.archive.every((s) => s.is_open === false && s.size === 100));
  assert.equal(w.body.archive[0]?.filename, 'arch/2026-03-10/arch_20260310T232000Z_3.mp4');
  assert.equal(w.body.archive[0]?.mtime, S('2026-03-10T23:30:00Z'));
  // days does not depend on the window.
  assert.deepEqual(w.body.days, ['2026-03-10', '2026-03-11', '2026-03-14']);

  // Only from: the day starting at from. Only to: the day up to to.
  const onlyFrom = await list(`?from=${S('2026-03-11T00:30:00Z')}`);
  assert.deepEqual(onlyFrom.body.archive.map((s) => s.sequence), [10, 11, 12]);
  const onlyTo = await list(`?to=${S('2026-03-10T23:10:00Z')}`);
  assert.deepEqual(onlyTo.body.archive.map((s) => s.sequence), [1]);

  // Timestamps carry the viewer's offset; days are dated on the viewer's clock.
  const kathmandu = await list(`?from=${S('2026-03-10T23:00:00Z')}&to=${S('2026-03-11T00:00:00Z')}&tz_offset_minutes=345`);
  assert.equal(kathmandu.body.archive[0]?.timestamp, '2026-03-11T04:45:00+05:45');
  assert.deepEqual(kathmandu.body.days, ['2026-03-11', '2026-03-14']);
  const newfoundland = await list(`?from=${S('2026-03-10T23:00:00Z')}&to=${S('2026-03-11T00:00:00Z')}&tz_offset_minutes=-150`);
  assert.equal(newfoundland.body.archive[0]?.timestamp, '2026-03-10T20:30:00-02:30');
  assert.deepEqual(newfoundland.body.days, ['2026-03-10', '2026-03-14']);
  const kiribati = await list(`?from=${S('2026-03-14T00:00:00Z')}&to=${S('2026-03-15T00:00:00Z')}&tz_offset_minutes=840`);
  assert.equal(kiribati.body.archive[0]?.timestamp, '2026-03-15T02:00:00+14:00');
  assert.deepEqual(kiribati.body.days, ['2026-03-11', '2026-03-15']);
  // A window across local midnight (UTC+1: 23:30–00:30 local spans two local days).
  const acrossMidnight = await list(`?from=${S('2026-03-10T22:30:00Z')}&to=${S('2026-03-10T23:30:00Z')}&tz_offset_minutes=60`);
  assert.deepEqual(acrossMidnight.body.archive.map((s) => s.timestamp), ['2026-03-11T00:00:00+01:00', '2026-03-11T00:10:00+01:00', '2026-03-11T00:20:00+01:00']);

  // Unknown camera: 200 with empty lists.
  assert.deepEqual((await list('', 'nobody-here')).body, { archive: [], days: [] });

  // Every 400 names the parameter.
  for (const [query, code, parameter] of [
    ['?from=abc', 'invalid_parameter', 'from'],
    ['?to=12.5', 'invalid_parameter', 'to'],
    ['?tz_offset_minutes=900', 'invalid_parameter', 'tz_offset_minutes'],
    ['?tz_offset_minutes=-841', 'invalid_parameter', 'tz_offset_minutes'],
    ['?from=2000&to=1000', 'invalid_window', 'from'],
    [`?from=0&to=${25 * 3600 + 1}`, 'invalid_window', 'to'],
  ] as const) {
    const r = await list(query);
    assert.equal(r.status, 400, query);
    assert.equal(r.body.error?.code, code, query);
    assert.equal(r.body.error?.details?.parameter, parameter, query);
  }

  // Paths the router itself rejects still get the error body: a broken escape, an over-long id, a traversal.
  for (const [path, status, code] of [['/api/archive/%E0%A4%A/segments', 400, 'bad_request'], [`/api/archive/jobs/${'a'.repeat(120)}`, 414, 'uri_too_long'], ['/api/archive/..%2F..%2Fetc/segments', 400, 'bad_request']] as const) {
    const r = await getJson(`${rec.url}${path}`);
    assert.equal(r.status, status, path);
    assert.equal((r.body as { error?: { code?: unknown } }).error?.code, code, `${path}: ${JSON.stringify(r.body)}`);
  }

  // The recording camera: today's default window holds exactly one open segment, with its current size.
  await waitUntil(async () => (await getJson(`${rec.url}/api/archive/live-now/current`)).status === 200, 20_000, 'recording');
  const today = await list('', 'live-now');
  assert.equal(today.status, 200);
  const open = today.body.archive.filter((s) => s.is_open);
  assert.equal(open.length, 1);
  const current = (await getJson(`${rec.url}/api/archive/live-now/current`)).body as { filename: string; size: number };
  assert.equal(open[0]?.filename, current.filename);
  assert.ok((open[0]?.size ?? 0) > 0);
  assert.equal(today.body.days.length >= 1, true);
});

test('a rescan picks up files added and removed by hand; the API answers while the start-up walk runs', { timeout: 90_000 }, async (t) => {
  const dir = await tempDir(t);
  const recordPath = join(dir, 'recordings');
  // 20 cameras × 1,000 files: enough for the walk to take a moment.
  const base = S('2026-01-05T00:00:00Z') * 1000;
  await Promise.all(
    Array.from({ length: 20 }, async (_, c) => {
      for (let i = 0; i < 1000; i++) await plant(recordPath, `walk${c}`, new Date(base + i * 60_000).toISOString(), 60, i + 1);
    }),
  );
  const rec = await startRecorderProcess({ dir, config: { auth: { disabled: true }, archive: { rescan_minutes: 0.03 }, cameras: [] } });
  t.after(() => rec.stop());
  // The listing of the last camera is complete even if the walk has not reached it yet.
  const last = await getJson(`${rec.url}/api/archive/walk19/segments?from=${S('2026-01-05T00:00:00Z')}`);
  assert.equal(last.status, 200);
  assert.equal((last.body as Listing).archive.length, 1000);
  assert.equal((await getJson(`${rec.url}/api/health/live`)).status, 200);
  const walked = await rec.waitForLog((l) => l.msg === 'archive walk finished');
  assert.equal(walked['segments'], 20_000);

  // A file copied in by hand appears after a rescan; one deleted by hand disappears.
  const added = await plant(recordPath, 'walk0', '2026-01-06T08:00:00Z', 60, 5000);
  await rm(join(recordPath, segmentRelativePath('walk1', new Date(base), 1)));
  await waitUntil(async () => {
    const a = (await getJson(`${rec.url}/api/archive/walk0/segments?from=${S('2026-01-06T00:00:00Z')}`)).body as Listing;
    const b = (await getJson(`${rec.url}/api/archive/walk1/segments?from=${S('2026-01-05T00:00:00Z')}`)).body as Listing;
    return a.archive.some((s) => s.filename === added) && b.archive.length === 999;
  }, 20_000, 'the rescan reconciles the index with the disk');
  assert.deepEqual(((await getJson(`${rec.url}/api/archive/walk0/segments`)).body as Listing).days, ['2026-01-05', '2026-01-06']);
});

test('a camera folder that cannot be read answers 500, never an empty archive', { timeout: 30_000 }, async (t) => {
  const dir = await tempDir(t);
  const recordPath = join(dir, 'recordings');
  await plant(recordPath, 'fine', '2026-03-10T10:00:00Z', 60, 1);
  // A day "folder" that is a file: readdir fails with ENOTDIR, as on a failing disk (root ignores permissions).
  await mkdir(join(recordPath, 'broken'), { recursive: true });
  await writeFile(join(recordPath, 'broken', '2026-03-10'), 'not a folder');
  const rec = await startRecorderProcess({ dir, config: { auth: { disabled: true }, cameras: [] } });
  t.after(() => rec.stop());
  const broken = await getJson(`${rec.url}/api/archive/broken/segments?from=${S('2026-03-10T00:00:00Z')}`);
  assert.equal(broken.status, 500);
  assert.equal((broken.body as { error: { code: string } }).error.code, 'archive_unreadable');
  const fine = await getJson(`${rec.url}/api/archive/fine/segments?from=${S('2026-03-10T00:00:00Z')}`);
  assert.equal(fine.status, 200);
  assert.equal((fine.body as Listing).archive.length, 1);
});

test('an archive copied or restored without its mtimes keeps its days and windows: segment ends come from the media', { timeout: 60_000 }, async (t) => {
  const dir = await tempDir(t);
  const recordPath = join(dir, 'recordings');
  const source = await encodeFragmented(dir, 'source.mp4', { seconds: 4, video: ['-c:v', 'libx264', '-preset', 'ultrafast', '-g', '25'], size: '320x240' });
  // Two real segments, copied in now (cp without -p): their mtime is today, their media says 4 s each.
  for (const [iso, seq] of [['2026-03-10T12:00:00Z', 1], ['2026-03-10T23:59:58Z', 2]] as const) {
    const rel = segmentRelativePath('restored', new Date(iso), seq);
    await mkdir(dirname(join(recordPath, rel)), { recursive: true });
    await copyFile(source, join(recordPath, rel));
  }
  const check = async (url: string): Promise<void> => {
    const day = await getJson(`${url}/api/archive/restored/segments?from=${S('2026-03-10T00:00:00Z')}&tz_offset_minutes=0`);
    assert.equal(day.status, 200);
    const body = day.body as Listing;
    assert.deepEqual(body.days, ['2026-03-10', '2026-03-11'], 'not every day from March to today');
    assert.deepEqual(body.archive.map((s) => s.mtime), [S('2026-03-10T12:00:04Z'), S('2026-03-11T00:00:02Z')], 'mtime is the end of the media');
    // A window after the media ended holds nothing (with the copy time as the end, both would still be "recording").
    const after = await getJson(`${url}/api/archive/restored/segments?from=${S('2026-03-11T00:00:03Z')}&to=${S('2026-03-11T12:00:00Z')}`);
    assert.deepEqual((after.body as Listing).archive, []);
  };
  const first = await startRecorderProcess({ dir, config: { auth: { disabled: true }, cameras: [] } });
  t.after(() => first.stop());
  await check(first.url);
  await first.stop();
  // The next start reads the ends it measured from work_dir, and answers the same.
  const second = await startRecorderProcess({ dir, config: { auth: { disabled: true }, cameras: [] } });
  t.after(() => second.stop());
  await check(second.url);
});
