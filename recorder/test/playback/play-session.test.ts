// The play stream's state machine on real files and a hand-moved clock: following across a reconnect, the stall and
// `to` ends, a change of layout, a file passed over, a client that leaves.
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { readBoxHeader } from '../../src/media/box-reader.js';
import { parseInitSegment } from '../../src/media/init-parser.js';
import { parseMoof } from '../../src/media/moof-parser.js';
import type { PlayArchive, PlaySegment } from '../../src/playback/play-archive.js';
import { openPlayStream, type PlayStream } from '../../src/playback/play-stream.js';
import { PlaybackError } from '../../src/playback/playback-errors.js';
import { tempDir } from '../media/fixtures.js';
import { ManualClock, testLogger } from '../support/fakes.js';
import { appendFragments, FRAGMENT_MS, FRAGMENT_TICKS, initSegment, TIMESCALE, writeSegment } from './synthetic-segments.js';

const STALL_MS = 5000;

/** A camera's files as the recorder lists them: closed ones, and the open one with its written size. */
class FilesOfCamera implements PlayArchive {
  readonly list: PlaySegment[] = [];
  readonly written = new Map<string, number>();

  constructor(readonly dir: string) {}

  add(sequence: number, startMs: number, writtenSize?: number): string {
    const filename = `cam/seg_${sequence}.mp4`;
    this.list.push({ filename, path: join(this.dir, `seg_${sequence}.mp4`), sequence, startMs, startPrecise: true });
    if (writtenSize !== undefined) this.written.set(filename, writtenSize);
    return join(this.dir, `seg_${sequence}.mp4`);
  }

  async segments(_cameraId: string, _fromMs: number, toMs: number): Promise<PlaySegment[]> {
    return this.list.filter((s) => s.startMs < toMs).sort((a, b) => a.startMs - b.startMs);
  }

  writtenSize(_cameraId: string, filename: string): number | undefined {
    return this.written.get(filename);
  }
}

/** A stream being read in the background; what came out so far, and whether it has ended. */
class Reading {
  readonly chunks: Buffer[] = [];
  ended = false;
  readonly done: Promise<void>;

  constructor(readonly stream: PlayStream) {
    this.done = (async () => {
      for await (const chunk of stream.chunks) this.chunks.push(Buffer.from(chunk));
      this.ended = true;
    })();
  }

  /** Output decode times of the video fragments so far (ticks of the lead track). */
  decodes(): number[] {
    const init = parseInitSegment(this.chunks[0] as Buffer);
    return this.chunks.slice(1).filter((c) => c.toString('latin1', 4, 8) === 'moof').map((m) => parseMoof(m, readBoxHeader(m, 0) as NonNullable<ReturnType<typeof readBoxHeader>>, init.tracks).trafs[0]?.baseMediaDecodeTime as number);
  }
}

/** Lets the file reads started by the stream finish (they run on libuv's pool, not on the hand-moved clock). */
const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 30));

async function tick(clock: ManualClock, ms: number): Promise<void> {
  for (let moved = 0; moved < ms; moved += 200) {
    clock.advance(Math.min(200, ms - moved));
    await settle();
  }
}

async function setUp(t: TestContext): Promise<{ files: FilesOfCamera; clock: ManualClock; open: (fromMs: number, toMs: number) => Promise<Reading> }> {
  const files = new FilesOfCamera(await tempDir(t));
  const clock = new ManualClock(Date.UTC(2026, 5, 1, 12));
  const controller = new AbortController();
  t.after(() => controller.abort());
  const deps = { archive: files, clock, log: testLogger().log, followIdleMs: STALL_MS };
  return { files, clock, open: async (fromMs, toMs) => new Reading(await openPlayStream(deps, { cameraId: 'cam', fromMs, toMs }, controller.signal)) };
}

test('a followed window goes on across a reconnect: the closed file waits for the next one, the gap stays a gap', async (t) => {
  const { files, clock, open } = await setUp(t);
  const start = clock.now();
  files.add(1, start, undefined);
  await writeSegment(files.list[0]?.path as string, 10); // 2 s, then the camera went away: the file is closed
  clock.advance(2100);
  const reading = await open(start, start + 12_000);
  await tick(clock, 2000); // the camera is reconnecting: no next file yet
  assert.equal(reading.decodes().length, 10, 'the closed file was sent whole');
  assert.equal(reading.ended, false, 'a closed file with nothing after it yet is not the end of a followed window');
  // The camera is back 2.5 s after the first file ended; its clock starts again elsewhere.
  const gapStart = start + 10 * FRAGMENT_MS + 2500;
  const second = files.add(2, gapStart, 0);
  const size = await writeSegment(second, 5, { firstDecode: 987_654_321 });
  files.written.set('cam/seg_2.mp4', size);
  await tick(clock, 600);
  const decodes = reading.decodes();
  assert.equal(decodes.length, 15, 'one stream: the next file follows in it');
  assert.equal(decodes[10], Math.round(((gapStart - start) / 1000) * TIMESCALE), 'the next file sits at its wall-clock place: the gap kept');
  assert.deepEqual(decodes.slice(11).map((d, i) => d - (decodes[10 + i] as number)), [FRAGMENT_TICKS, FRAGMENT_TICKS, FRAGMENT_TICKS, FRAGMENT_TICKS]);
  files.written.delete('cam/seg_2.mp4');
  await tick(clock, 12_000);
  await reading.done;
  assert.equal(reading.ended, true, 'ends once past to (and its grace)');
});

test('a followed recording that stops growing ends after stall_seconds, not before; growth restarts the wait', async (t) => {
  const { files, clock, open } = await setUp(t);
  const start = clock.now();
  const path = files.add(1, start, 0);
  let size = await writeSegment(path, 5);
  files.written.set('cam/seg_1.mp4', size);
  clock.advance(1000);
  const reading = await open(start, start + 60_000);
  await tick(clock, STALL_MS - 600);
  assert.equal(reading.ended, false);
  size += await appendFragments(path, 5, 5);
  files.written.set('cam/seg_1.mp4', size);
  await tick(clock, 1000);
  assert.equal(reading.decodes().length, 10, 'what was written meanwhile is sent');
  await tick(clock, STALL_MS - 1400);
  assert.equal(reading.ended, false, 'the wait counts from the last growth');
  await tick(clock, 1000);
  await reading.done;
  assert.equal(reading.decodes().length, 10);
});

test('a window in the past starts at the keyframe at or before from, stops before to, and ends without waiting', async (t) => {
  const { files, clock, open } = await setUp(t);
  const start = clock.now();
  await writeSegment(files.add(1, start), 20); // 4 s, keyframes every second
  clock.advance(60_000);
  const reading = await open(start + 1100, start + 2000);
  assert.equal(reading.stream.startWallMs, start + 1000, 'time zero is the keyframe at 1.0 s');
  await reading.done; // no clock move needed
  assert.deepEqual(reading.decodes(), [0, 1, 2, 3, 4].map((i) => i * FRAGMENT_TICKS), 'the fragments from 1.0 s that start before 2.0 s');
});

test('a next file of another layout ends the stream; a closed file that cannot be read is passed over', async (t) => {
  const { files, clock, open } = await setUp(t);
  const start = clock.now();
  await writeSegment(files.add(1, start), 5);
  await writeFile(files.add(2, start + 1000), Buffer.alloc(0)); // closed and empty: nothing to read, ever
  await writeSegment(files.add(3, start + 1000), 5, { firstDecode: 5 * FRAGMENT_TICKS });
  await writeSegment(files.add(4, start + 2000), 5, {}, 30_000); // another timescale: another layout
  clock.advance(2500);
  const reading = await open(start, start + 20_000);
  await tick(clock, 400);
  await reading.done;
  assert.equal(reading.decodes().length, 10, 'the first and third files, then the end at the fourth');
  assert.ok(reading.chunks[0]?.equals(initSegment()));
});

test('close() ends a following stream at once and it reads no more', async (t) => {
  const { files, clock, open } = await setUp(t);
  const start = clock.now();
  const path = files.add(1, start, 0);
  const size = await writeSegment(path, 5);
  files.written.set('cam/seg_1.mp4', size);
  clock.advance(1000);
  const reading = await open(start, start + 60_000);
  await tick(clock, 400);
  reading.stream.close();
  await tick(clock, 400);
  await reading.done;
  assert.equal(reading.decodes().length, 5);
});

test('a window with nothing recorded is refused before any byte', async (t) => {
  const { files, clock, open } = await setUp(t);
  await writeSegment(files.add(1, clock.now() + 30_000), 5);
  await assert.rejects(open(clock.now(), clock.now() + 20_000), (err: unknown) => err instanceof PlaybackError && err.kind === 'no_recordings');
});
