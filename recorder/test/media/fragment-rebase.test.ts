// Rebasing a fragment's decode times for a segment file.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BoxFormatError } from '../../src/media/box-reader.js';
import type { InitSegment } from '../../src/media/fmp4-types.js';
import { rebaseFragment, trackOffsetsFor } from '../../src/media/fragment-rebase.js';
import { box, fullBox, largeBox, u32, u64 } from './box-builder.js';

/** A traf of `trackId` whose tfdt is version `version` at `decodeTime`. */
function traf(trackId: number, version: 0 | 1, decodeTime: number): Buffer {
  return box('traf', fullBox('tfhd', 0, 0x020000, u32(trackId)), fullBox('tfdt', version, 0, version === 1 ? u64(decodeTime) : u32(decodeTime)), fullBox('trun', 0, 0, u32(0)));
}

function tfdtOf(moof: Buffer, trackId: number): number {
  // Test side: find "tfhd" with the track id, then the tfdt that follows it.
  const tfhd = moof.indexOf(Buffer.concat([Buffer.from('tfhd'), u32(0x020000), u32(trackId)]));
  const tfdt = moof.indexOf('tfdt', tfhd);
  const version = moof[tfdt + 4];
  return version === 1 ? Number(moof.readBigUInt64BE(tfdt + 8)) : moof.readUInt32BE(tfdt + 8);
}

test('rebase: each track by its own offset, 32- and 64-bit tfdt, never below zero; the input untouched, mdat shared', () => {
  const big = 2 ** 40 + 12_345;
  const moof = box('moof', fullBox('mfhd', 0, 0, u32(7)), traf(1, 1, big), traf(2, 0, 1000));
  const mdat = box('mdat', Buffer.from('picture'));
  const styp = box('styp', Buffer.from('msdh'));
  const data = Buffer.concat([styp, moof, mdat]);
  const before = Buffer.from(data);
  const parts = rebaseFragment(data, new Map([[1, big - 90_000], [2, 4000]]));
  assert.equal(parts.length, 3);
  const [head, newMoof, tail] = parts as [Buffer, Buffer, Buffer];
  assert.ok(head.equals(styp) && tail.equals(mdat));
  assert.equal(tail.buffer, data.buffer, 'the mdat is not copied');
  assert.equal(tfdtOf(newMoof, 1), 90_000);
  assert.equal(tfdtOf(newMoof, 2), 0, 'clamped at zero');
  assert.ok(data.equals(before), 'the shared fragment is not modified');
  assert.equal(newMoof.length, moof.length);
});

test('rebase: no offsets returns the fragment as it is; a fragment without a moof too', () => {
  const data = Buffer.concat([box('moof', traf(1, 1, 5)), box('mdat')]);
  assert.deepEqual(rebaseFragment(data, new Map()), [data]);
  const noMoof = box('free', Buffer.alloc(4));
  assert.deepEqual(rebaseFragment(noMoof, new Map([[1, 1]])), [noMoof]);
});

test('rebase: 64-bit box sizes are followed; a box overrunning its parent is a BoxFormatError', () => {
  const data = Buffer.concat([largeBox('moof', traf(1, 0, 500)), box('mdat')]);
  const [, moof] = rebaseFragment(data, new Map([[1, 200]])) as [Buffer, Buffer];
  assert.equal(tfdtOf(moof, 1), 300);
  const broken = Buffer.concat([u32(4000), Buffer.from('moof'), Buffer.alloc(8)]);
  assert.throws(() => rebaseFragment(broken, new Map([[1, 1]])), BoxFormatError);
});

test('segment offsets: one offset in seconds for all tracks, from the earliest track of the first fragment, so nothing is clamped', () => {
  const init = { data: Buffer.alloc(0), tracks: [{ trackId: 1, timescale: 90_000 }, { trackId: 2, timescale: 48_000 }] } as unknown as InitSegment;
  // The keyframe at 10 s carries audio from 9.98 s (it arrived before the picture).
  const first = Buffer.concat([box('moof', traf(1, 1, 900_000), traf(2, 1, 479_040)), box('mdat')]);
  const offsets = trackOffsetsFor(init, 10, first);
  assert.deepEqual([...offsets], [[1, 898_200], [2, 479_040]]);
  const [, moof] = rebaseFragment(first, offsets) as [Buffer, Buffer];
  assert.equal(tfdtOf(moof, 2), 0, 'the audio starts the file');
  assert.equal(tfdtOf(moof, 1), 1800, 'the picture 20 ms later, in sync with it');
  // Without an earlier track (or without the fragment) the segment's start is the offset.
  assert.deepEqual([...trackOffsetsFor(init, 10)], [[1, 900_000], [2, 480_000]]);
});
