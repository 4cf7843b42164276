// The segment writer's roll: the next file opens before the full one closes, so the current segment never disappears;
// a write that fails is counted (vigil_camera_segment_write_errors_total).
import assert from 'node:assert/strict';
import { closeSync, openSync, readdirSync, readlinkSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { pino } from 'pino';
import { OpenSegmentJournal, type OpenSegmentEntry } from '../../src/recording/open-journal.js';
import { SegmentWriter } from '../../src/recording/segment-writer.js';
import { SequenceStore } from '../../src/recording/sequence-store.js';
import { encodeFragmented, parseChunked, tempDir } from '../media/fixtures.js';

/** A journal whose next add() waits until released: the moment the writer is opening its next file. */
class GatedJournal extends OpenSegmentJournal {
  #gate: { entered: () => void; release: Promise<void> } | undefined;

  hold(): { entered: Promise<void>; release: () => void } {
    let entered!: () => void;
    let release!: () => void;
    const enteredP = new Promise<void>((r) => (entered = r));
    this.#gate = { entered, release: new Promise<void>((r) => (release = r)) };
    return { entered: enteredP, release };
  }

  override async add(entry: OpenSegmentEntry): Promise<void> {
    const gate = this.#gate;
    this.#gate = undefined;
    if (gate !== undefined) {
      gate.entered();
      await gate.release;
    }
    await super.add(entry);
  }
}

test('rolling to the next segment: the full one stays current until the next one is open (GET …/current never 404s mid-roll)', async (t) => {
  const dir = await tempDir(t);
  const source = await encodeFragmented(dir, 'source.mp4', { seconds: 3, video: ['-c:v', 'libx264', '-preset', 'ultrafast', '-g', '25'], size: '320x240' });
  const { inits, fragments } = parseChunked(await readFile(source), () => 65_536);
  const init = inits[0];
  assert.ok(init !== undefined);
  const journal = new GatedJournal(join(dir, 'work'));
  const writer = new SegmentWriter({
    cameraId: 'door',
    recordPath: dir,
    format: 'fmp4',
    segmentSeconds: 1,
    sequences: new SequenceStore(join(dir, 'work'), dir),
    journal,
    log: pino({ level: 'silent' }),
    remux: async () => undefined,
    onSegmentClosed: () => undefined,
  });
  const base = Date.parse('2026-05-01T10:00:00Z');
  const item = (i: number) => ({ type: 'fragment' as const, fragment: fragments[i] as NonNullable<(typeof fragments)[number]>, receivedAt: base + (fragments[i]?.decodeTime ?? 0) * 1000 });
  await writer.handle({ type: 'init', init });
  const roll = fragments.findIndex((f) => f.keyframe && f.decodeTime >= 1 - 0.001);
  assert.ok(roll > 0, 'a keyframe fragment one second in');
  for (let i = 0; i < roll; i++) await writer.handle(item(i));
  const first = writer.current();
  assert.ok(first !== undefined, 'a segment is open');

  const gate = journal.hold();
  const rolling = writer.handle(item(roll));
  await gate.entered;
  assert.equal(writer.current()?.filename, first.filename, 'while the next file is being opened, the full one is still current');
  gate.release();
  await rolling;
  const second = writer.current();
  assert.ok(second !== undefined && second.filename !== first.filename && second.sequence === first.sequence + 1, 'then the next one is');
  await writer.close();
});

/** Puts /dev/full (every write fails with ENOSPC) under the file descriptor `fd`: close it, then open until that number is given again. */
function replaceWithFullDevice(fd: number): void {
  closeSync(fd);
  const extra: number[] = [];
  for (let i = 0; i < 64; i++) {
    const got = openSync('/dev/full', 'w');
    if (got === fd) break;
    extra.push(got);
  }
  for (const other of extra) closeSync(other);
}

test('a segment write that fails (a full disk) is counted in writeErrors and logged; the writer goes on', async (t) => {
  const dir = await tempDir(t);
  const source = await encodeFragmented(dir, 'source.mp4', { seconds: 2, video: ['-c:v', 'libx264', '-preset', 'ultrafast', '-g', '25'], size: '320x240' });
  const { inits, fragments } = parseChunked(await readFile(source), () => 65_536);
  const init = inits[0];
  assert.ok(init !== undefined);
  const lines: string[] = [];
  const writer = new SegmentWriter({
    cameraId: 'door',
    recordPath: dir,
    format: 'fmp4',
    segmentSeconds: 60,
    sequences: new SequenceStore(join(dir, 'work'), dir),
    journal: new OpenSegmentJournal(join(dir, 'work')),
    log: pino({ level: 'info' }, { write: (line: string) => void lines.push(line) }),
    remux: async () => undefined,
    onSegmentClosed: () => undefined,
  });
  const base = Date.parse('2026-05-01T10:00:00Z');
  await writer.handle({ type: 'init', init });
  await writer.handle({ type: 'fragment', fragment: fragments[0]!, receivedAt: base });
  const open = writer.current();
  assert.ok(open !== undefined);
  assert.equal(writer.writeErrors, 0);
  // The open segment's file descriptor, found as the kernel names it.
  const fd = readdirSync('/proc/self/fd').map(Number).find((n) => {
    try {
      return readlinkSync(`/proc/self/fd/${n}`) === join(dir, open.filename);
    } catch {
      return false;
    }
  });
  assert.ok(fd !== undefined, 'the segment file is open');
  replaceWithFullDevice(fd);
  for (let i = 1; i < fragments.length; i++) await writer.handle({ type: 'fragment', fragment: fragments[i]!, receivedAt: base + i * 40 });
  await writer.close();
  assert.ok(writer.writeErrors > 0, 'the failed writes are counted');
  assert.ok(lines.some((l) => /segment (write|close) failed/.test(l) && /ENOSPC/.test(l)), lines.join(''));
});
