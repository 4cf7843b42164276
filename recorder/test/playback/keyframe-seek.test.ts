// Where a play starts in a long segment file: the keyframe at or before a time, found on fragment headers — the same
// answer as reading every fragment, for a small part of the bytes.
import assert from 'node:assert/strict';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { fragmentTimes, leadTrack } from '../../src/playback/fragment-times.js';
import { seekKeyframe, type SeekFile } from '../../src/playback/keyframe-seek.js';
import { openPlayStream } from '../../src/playback/play-stream.js';
import { SegmentFileReader } from '../../src/playback/segment-file-reader.js';
import { systemClock } from '../../src/util/clock.js';
import { tempDir } from '../media/fixtures.js';
import { testLogger } from '../support/fakes.js';
import { FRAGMENT_TICKS, writeSegment, type FragmentPlan } from './synthetic-segments.js';

async function openFile(path: string): Promise<SeekFile> {
  const reader = await SegmentFileReader.open(path);
  const limit = (await stat(path)).size;
  const read = await reader.readInit(limit);
  assert.equal(read.kind, 'fragmented');
  if (read.kind !== 'fragmented') throw new Error('unreachable');
  return { reader, init: read.init, lead: leadTrack(read.init) as NonNullable<ReturnType<typeof leadTrack>>, firstPos: read.end, limit };
}

/** The answer by reading every fragment whole, as play did before: the last keyframe at or before the goal. */
async function byReadingAll(file: SeekFile, goalOf: (first: number) => number): Promise<{ offset: number; bytesRead: number } | undefined> {
  let chosen: number | undefined;
  let first: number | undefined;
  for (let pos = file.firstPos; ; ) {
    const f = await file.reader.fragmentAt(pos, file.limit);
    if (f === undefined) break;
    const times = fragmentTimes(f.moof, f.offset, file.init, file.lead);
    if (times === undefined) break;
    first ??= times.decode;
    if (chosen !== undefined && times.decode > goalOf(first)) break;
    if (times.keyframe) chosen = f.offset;
    pos = f.end;
  }
  return chosen === undefined ? undefined : { offset: chosen, bytesRead: file.reader.bytesRead };
}

for (const lookalikes of [false, true]) {
  test(`the start keyframe of a long file is found on headers: same as a full read, a small part of the bytes${lookalikes ? ' (samples full of moof look-alikes)' : ''}`, async (t) => {
    const dir = await tempDir(t);
    // 12 minutes of 200 ms fragments of 10 KB, a keyframe every 2 s, the camera's clock not at zero.
    const plan: FragmentPlan = { firstDecode: 123_456_789, keyEvery: 10, sampleBytes: 2000, lookalikes };
    const count = 3600;
    const path = join(dir, 'long.mp4');
    const size = await writeSegment(path, count, plan);
    const at = (fragments: number) => (first: number) => first + fragments * FRAGMENT_TICKS;
    for (const [what, goal] of [
      ['before the file', (first: number) => first - 5 * FRAGMENT_TICKS],
      ['its first picture', at(0)],
      ['on a keyframe near the start', at(30)],
      ['mid-GOP in the middle', at(1804.5)],
      ['on the last keyframe', at(3590)],
      ['in the last fragment', at(3599.5)],
      ['past the end', at(4000)],
    ] as const) {
      const seekFile = await openFile(path);
      const seeked = await seekKeyframe(seekFile, goal);
      const readAll = await openFile(path);
      const expected = await byReadingAll(readAll, goal);
      assert.equal(seeked?.offset, expected?.offset, `${what}: the same keyframe`);
      assert.equal(seeked?.firstDecode, 123_456_789);
      assert.equal(seeked?.times.keyframe, true);
      // Bisection on headers: a few dozen reads of a moof or a 32 KiB look, never the samples on the way.
      assert.ok(seekFile.reader.bytesRead < 1024 * 1024, `${what}: ${seekFile.reader.bytesRead} bytes read of ${size}`);
      if (expected !== undefined && expected.offset > size / 2) assert.ok(seekFile.reader.bytesRead * 20 < expected.bytesRead, `${what}: ${seekFile.reader.bytesRead} bytes against ${expected.bytesRead} for a full read`);
      await seekFile.reader.close();
      await readAll.reader.close();
    }
  });
}

test('a file being written is sought only up to its written size', async (t) => {
  const dir = await tempDir(t);
  const path = join(dir, 'open.mp4');
  await writeSegment(path, 500, { keyEvery: 10, sampleBytes: 500 });
  const file = await openFile(path);
  // Only the first 200 fragments are written whole as far as the writer says.
  const firstTwoHundred = await (async () => {
    let pos = file.firstPos;
    for (let i = 0; i < 200; i++) pos = (await file.reader.fragmentHeaderAt(pos, file.limit))?.end as number;
    return pos;
  })();
  const seeked = await seekKeyframe({ ...file, limit: firstTwoHundred }, (first) => first + 450 * FRAGMENT_TICKS);
  assert.equal(seeked?.times.decode, 190 * FRAGMENT_TICKS, 'the last keyframe within what is written');
  await file.reader.close();
});

/** Bytes this process has read through read system calls so far (page cache included): Linux's /proc/self/io. */
async function processReadBytes(): Promise<number> {
  return Number(/^rchar:\s*(\d+)/m.exec(await readFile('/proc/self/io', 'utf8'))?.[1]);
}

test('a play near the end of a long closed file reads its headers and the start fragment, not the samples before it', async (t) => {
  const dir = await tempDir(t);
  const path = join(dir, 'hour.mp4');
  const size = await writeSegment(path, 3600, { keyEvery: 10, sampleBytes: 2000 });
  const startMs = Date.UTC(2026, 5, 1, 12);
  const archive = {
    segments: async () => [{ filename: 'cam/hour.mp4', path, sequence: 1, startMs, startPrecise: true }],
    writtenSize: () => undefined,
  };
  const controller = new AbortController();
  t.after(() => controller.abort());
  const deps = { archive, clock: { ...systemClock, now: () => startMs + 3_600_000 }, log: testLogger().log, followIdleMs: 5000 };
  const before = await processReadBytes();
  const stream = await openPlayStream(deps, { cameraId: 'cam', fromMs: startMs + 700_000, toMs: startMs + 710_000 }, controller.signal);
  const read = (await processReadBytes()) - before;
  assert.equal(stream.startWallMs, startMs + 700_000, 'starts at the keyframe at 700 s');
  stream.close();
  assert.ok(read < 2 * 1024 * 1024, `opening read ${read} bytes of a ${size}-byte file (the 700 s before the start are ${Math.round((size * 700) / 720)} bytes)`);
});
