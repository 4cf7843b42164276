// Fragment parsing on hand-built boxes: every tfhd/trun/tfdt option and the flag/duration fallback order.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { box, fullBox, i32, largeBox, syntheticInit, u32, u64, type SyntheticTrack } from './box-builder.js';
import type { InitSegment, MediaFragment } from '../../src/media/fmp4-types.js';
import { parseChunked } from './fixtures.js';

const SYNC = 0x02000000; // depends_on = 2 (I-frame), sync
const NON_SYNC = 0x01010000; // depends_on = 1, sample_is_non_sync_sample

const VIDEO: SyntheticTrack = { trackId: 1, handler: 'vide', timescale: 90000, trexDuration: 3000, trexFlags: NON_SYNC };
const AUDIO: SyntheticTrack = { trackId: 2, handler: 'soun', timescale: 48000, trexDuration: 1024, trexFlags: 0 };

function fragment(seq: number, ...trafs: Buffer[]): Buffer {
  return Buffer.concat([box('moof', fullBox('mfhd', 0, 0, u32(seq)), ...trafs), box('mdat', Buffer.alloc(64, 0xaa))]);
}

function parseOne(init: Buffer, frag: Buffer): { inits: InitSegment[]; only: MediaFragment } {
  const result = parseChunked(Buffer.concat([init, frag]), () => 1 << 20);
  assert.deepEqual(result.errors.map((e) => e.message), []);
  assert.equal(result.fragments.length, 1);
  const only = result.fragments[0];
  assert.ok(only);
  return { inits: result.inits, only };
}

test('tfhd with every optional field; trun without per-sample values uses tfhd defaults', () => {
  const tfhd = fullBox('tfhd', 0, 0x01 | 0x02 | 0x08 | 0x10 | 0x20, u32(1), u64(1234), u32(1), u32(1500), u32(10), u32(SYNC));
  const trun = fullBox('trun', 0, 0x01, u32(4), i32(0));
  const r = parseOne(syntheticInit([VIDEO]), fragment(7, box('traf', tfhd, fullBox('tfdt', 0, 0, u32(90000)), trun)));
  assert.equal(r.only.sequenceNumber, 7);
  assert.equal(r.only.keyframe, true);
  assert.equal(r.only.decodeTime, 1);
  assert.equal(r.only.duration, (4 * 1500) / 90000);
  assert.equal(r.only.sampleCount, 4);
});

test('trun first_sample_flags wins over per-sample and default flags', () => {
  const tfhd = fullBox('tfhd', 0, 0x20020, u32(1), u32(NON_SYNC));
  const sync = fullBox('trun', 0, 0x01 | 0x04 | 0x100 | 0x400, u32(2), i32(0), u32(SYNC), u32(3000), u32(NON_SYNC), u32(3000), u32(NON_SYNC));
  assert.equal(parseOne(syntheticInit([VIDEO]), fragment(1, box('traf', tfhd, sync))).only.keyframe, true);
  const nonSync = fullBox('trun', 0, 0x04 | 0x100 | 0x400, u32(2), u32(NON_SYNC), u32(3000), u32(SYNC), u32(3000), u32(SYNC));
  const r = parseOne(syntheticInit([VIDEO]), fragment(1, box('traf', tfhd, nonSync)));
  assert.equal(r.only.keyframe, false);
  assert.equal(r.only.duration, 6000 / 90000);
});

test('per-sample flags of the first sample are used when there is no first_sample_flags', () => {
  const tfhd = fullBox('tfhd', 0, 0x20020, u32(1), u32(NON_SYNC));
  const trun = fullBox('trun', 0, 0x400 | 0x800, u32(2), u32(SYNC), i32(0), u32(NON_SYNC), i32(3000));
  const r = parseOne(syntheticInit([VIDEO]), fragment(1, box('traf', tfhd, trun)));
  assert.equal(r.only.keyframe, true);
  assert.equal(r.only.duration, (2 * 3000) / 90000, 'durations fall back to trex');
});

test('tfhd default flags, then trex defaults, decide when the trun has no flags', () => {
  const trun = fullBox('trun', 0, 0, u32(3));
  const withTfhd = box('traf', fullBox('tfhd', 0, 0x20020, u32(1), u32(SYNC)), trun);
  assert.equal(parseOne(syntheticInit([VIDEO]), fragment(1, withTfhd)).only.keyframe, true);
  const trexOnly = box('traf', fullBox('tfhd', 0, 0x20000, u32(1)), trun);
  const r = parseOne(syntheticInit([VIDEO]), fragment(1, trexOnly));
  assert.equal(r.only.keyframe, false, 'trex default flags are non-sync');
  assert.equal(r.only.duration, (3 * 3000) / 90000);
  const syncTrex = parseOne(syntheticInit([{ ...VIDEO, trexFlags: SYNC }]), fragment(1, trexOnly));
  assert.equal(syncTrex.only.keyframe, true);
});

test('tfdt version 1 (64-bit), mdhd version 1, missing tfdt gives NaN', () => {
  const tfhd = fullBox('tfhd', 0, 0x20000, u32(1));
  const big = 2 ** 40;
  const trun = fullBox('trun', 0, 0x04, u32(1), u32(SYNC));
  const r = parseOne(syntheticInit([VIDEO], 1), fragment(1, box('traf', tfhd, fullBox('tfdt', 1, 0, u64(big)), trun)));
  assert.equal(r.inits[0]?.video?.timescale, 90000);
  assert.equal(r.only.decodeTime, big / 90000);
  const noTfdt = parseOne(syntheticInit([VIDEO]), fragment(1, box('traf', tfhd, trun)));
  assert.ok(Number.isNaN(noTfdt.only.decodeTime));
});

test('the video traf is used even when audio comes first; duration-is-empty traf', () => {
  const audio = box('traf', fullBox('tfhd', 0, 0x20000, u32(2)), fullBox('tfdt', 0, 0, u32(48000)), fullBox('trun', 0, 0, u32(10)));
  const video = box(
    'traf',
    fullBox('tfhd', 0, 0x20000, u32(1)),
    fullBox('tfdt', 0, 0, u32(180000)),
    fullBox('trun', 0, 0x04 | 0x100, u32(2), u32(SYNC), u32(3600), u32(3600)),
  );
  const r = parseOne(syntheticInit([AUDIO, VIDEO]), fragment(3, audio, video));
  assert.equal(r.inits[0]?.video?.trackId, 1);
  assert.equal(r.only.keyframe, true);
  assert.equal(r.only.decodeTime, 2);
  assert.equal(r.only.duration, 7200 / 90000);
  const empty = box('traf', fullBox('tfhd', 0, 0x10000 | 0x20000, u32(1)), fullBox('tfdt', 0, 0, u32(0)));
  const e = parseOne(syntheticInit([AUDIO, VIDEO]), fragment(4, audio, empty));
  assert.deepEqual([e.only.keyframe, e.only.duration, e.only.sampleCount], [false, 0, 0]);
});

test('top-level styp/sidx/prft/emsg/free/uuid are kept with the next fragment; mfra is dropped', () => {
  const init = syntheticInit([VIDEO]);
  const traf = box('traf', fullBox('tfhd', 0, 0x20000, u32(1)), fullBox('trun', 0, 0x04, u32(1), u32(SYNC)));
  const extras = Buffer.concat([
    box('styp', Buffer.from('msdh', 'latin1'), u32(0)),
    fullBox('sidx', 0, 0, Buffer.alloc(24)),
    fullBox('prft', 0, 0, u32(1), u64(0), u32(0)),
    fullBox('emsg', 0, 0, Buffer.from('urn:x\0\0', 'latin1'), Buffer.alloc(16)),
    box('free', Buffer.alloc(3)),
    box('uuid', Buffer.alloc(16, 1), Buffer.alloc(5)),
  ]);
  const frag1 = Buffer.concat([extras, fragment(1, traf)]);
  const frag2 = Buffer.concat([box('moof', fullBox('mfhd', 0, 0, u32(2)), traf), box('skip'), largeBox('mdat', Buffer.alloc(9))]);
  const stream = Buffer.concat([init, frag1, frag2, box('mfra', fullBox('mfro', 0, 0, u32(16)))]);
  for (const chunk of [1, 3, 1 << 20]) {
    const r = parseChunked(stream, () => chunk);
    assert.deepEqual(r.errors, []);
    assert.equal(r.fragments.length, 2);
    assert.ok(r.inits[0]?.data.equals(init));
    assert.ok(r.fragments[0]?.data.equals(frag1));
    assert.ok(r.fragments[1]?.data.equals(frag2), 'box between moof and mdat, 64-bit mdat');
  }
});

test('malformed fragments are reported through onError', () => {
  const init = syntheticInit([VIDEO]);
  const hugeCount = box('traf', fullBox('tfhd', 0, 0x20000, u32(1)), fullBox('trun', 0, 0x100, u32(0x7fffffff), u32(1)));
  const r = parseChunked(Buffer.concat([init, fragment(1, hugeCount)]), () => 100);
  assert.equal(r.errors.length, 1);
  assert.match(r.errors[0]?.message ?? '', /truncated 'trun'/);
  const noTfhd = parseChunked(Buffer.concat([init, fragment(1, box('traf', fullBox('tfdt', 0, 0, u32(0))))]), () => 100);
  assert.match(noTfhd.errors[0]?.message ?? '', /tfhd/);
});
