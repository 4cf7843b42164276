// The playback server's pure parts: the segment names a request may use, re-timing a moof, the timeline's placement rule.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readBoxHeader } from '../../src/media/box-reader.js';
import { parseInitSegment } from '../../src/media/init-parser.js';
import { parseMoof } from '../../src/media/moof-parser.js';
import { retimeMoof } from '../../src/playback/fragment-retime.js';
import { trackLayoutKey } from '../../src/playback/init-compat.js';
import { SegmentFileError, segmentFilename } from '../../src/playback/segment-file.js';
import { firstPictureWallMs, GAP_THRESHOLD_SECONDS, PlayTimeline, trackShifts } from '../../src/playback/timeline.js';
import { box, fullBox, syntheticInit, u32, u64 } from '../media/box-builder.js';

test('a segment file is named by its base name only; anything else is refused before the disk is asked', () => {
  assert.equal(segmentFilename('gate', 'gate_20261122T091500Z_4711.mp4'), 'gate/2026-11-22/gate_20261122T091500Z_4711.mp4');
  for (const bad of ['../gate_20261122T091500Z_4711.mp4', '2026-11-22/gate_20261122T091500Z_4711.mp4', 'gate_20261122T091500Z_4711.mp4.part', 'lobby_20261122T091500Z_4711.mp4', 'gate_20261122T091500Z_04711.mp4', 'gate_20261332T091500Z_1.mp4', '..', 'config.yaml', 'gate\\..\\x.mp4']) {
    assert.throws(() => segmentFilename('gate', bad), (err: unknown) => err instanceof SegmentFileError && err.kind === 'invalid_filename', bad);
  }
});

/** A moof with one video traf: tfhd (optionally base-data-offset), tfdt (v0 or v1), trun with composition offsets. */
function moof(opts: { tfdtVersion: 0 | 1; decode: number; baseDataOffset?: number }): Buffer {
  const tfhd = opts.baseDataOffset === undefined ? fullBox('tfhd', 0, 0x020000, u32(1)) : fullBox('tfhd', 0, 0x000001, u32(1), u64(opts.baseDataOffset));
  const tfdt = opts.tfdtVersion === 1 ? fullBox('tfdt', 1, 0, u64(opts.decode)) : fullBox('tfdt', 0, 0, u32(opts.decode));
  // Two samples: duration, size, flags, composition offset (trun flags 0xF01 incl. data offset).
  const trun = fullBox('trun', 0, 0x000f01, u32(2), u32(100), u32(3600), u32(10), u32(0x02000000), u32(7200), u32(3600), u32(10), u32(0x01010000), u32(0));
  return box('moof', fullBox('mfhd', 0, 0, u32(77)), box('traf', tfhd, tfdt, trun));
}

test('retiming a moof shifts tfdt, renumbers mfhd, moves an explicit base offset, and keeps every trun byte', () => {
  const init = parseInitSegment(syntheticInit([{ trackId: 1, handler: 'vide', timescale: 90000 }]));
  for (const version of [0, 1] as const) {
    const original = moof({ tfdtVersion: version, decode: 900_000 });
    const out = retimeMoof(original, { shifts: new Map([[1, -450_000]]), sequenceNumber: 5, fromOffset: 1000, toOffset: 50 });
    const parsed = parseMoof(out, readBoxHeader(out, 0) as NonNullable<ReturnType<typeof readBoxHeader>>, init.tracks);
    assert.equal(parsed.sequenceNumber, 5);
    assert.equal(parsed.trafs[0]?.baseMediaDecodeTime, 450_000);
    assert.equal(parsed.trafs[0]?.durationTicks, 7200);
    const trunAt = original.indexOf('trun') - 4;
    assert.ok(out.subarray(trunAt).equals(original.subarray(trunAt)), 'trun (sizes, flags, composition offsets) unchanged');
    assert.notEqual(original.readUInt32BE(original.indexOf('mfhd') + 8), 5, 'the input is not modified');
  }
  // Never below zero; an explicit base-data-offset follows the moof to its place in the output.
  const based = retimeMoof(moof({ tfdtVersion: 1, decode: 10, baseDataOffset: 1200 }), { shifts: new Map([[1, -100]]), sequenceNumber: 1, fromOffset: 1000, toOffset: 50 });
  const parsed = parseMoof(based, readBoxHeader(based, 0) as NonNullable<ReturnType<typeof readBoxHeader>>, init.tracks, 50);
  assert.equal(parsed.trafs[0]?.baseMediaDecodeTime, 0);
  assert.equal(based.readBigUInt64BE(based.indexOf('tfhd') + 12), 250n);
  // A 32-bit tfdt the shift would overflow is an error, not a wrapped time.
  assert.throws(() => retimeMoof(moof({ tfdtVersion: 0, decode: 0xfffffff0 }), { shifts: new Map([[1, 0x100]]), sequenceNumber: 1, fromOffset: 0, toOffset: 0 }));
});

test('the timeline chains a segment that follows on and keeps a gap; audio shifts with its pictures', () => {
  const timeline = new PlayTimeline(90000, Date.UTC(2026, 0, 1, 12));
  timeline.advance(60 * 90000); // the first file ran 60 s
  const at = (s: number): number => Date.UTC(2026, 0, 1, 12) + s * 1000;
  assert.equal(timeline.placeNext(at(60.4)), 60 * 90000, 'a start 0.4 s later (a name rounded to the second) follows on exactly');
  assert.equal(timeline.placeNext(at(59.2)), 60 * 90000, 'a start that looks earlier follows on too: no overlap');
  assert.equal(timeline.placeNext(at(60 + GAP_THRESHOLD_SECONDS + 5)), Math.round((60 + GAP_THRESHOLD_SECONDS + 5) * 90000), 'a gap stays at its wall-clock place');
  assert.equal(timeline.wallOf(90000 * 10), at(10));
  assert.equal(firstPictureWallMs(at(7.25), true), at(7.25));
  assert.equal(firstPictureWallMs(at(7), false), at(7.5), 'a name’s whole second: its middle');
  const init = parseInitSegment(syntheticInit([{ trackId: 1, handler: 'vide', timescale: 90000 }, { trackId: 2, handler: 'soun', timescale: 48000 }]));
  assert.deepEqual([...trackShifts(init.tracks, init.tracks[0] as (typeof init.tracks)[number], 90000 * 3)], [[1, 270000], [2, 144000]]);
});

test('init segments of one stream layout match whatever their creation times; another sample description does not', () => {
  const a = syntheticInit([{ trackId: 1, handler: 'vide', timescale: 90000 }]);
  const b = Buffer.from(a);
  b.writeUInt32BE(12345, b.indexOf('mvhd') + 8); // another creation time
  assert.equal(trackLayoutKey(parseInitSegment(a)), trackLayoutKey(parseInitSegment(b)));
  const c = Buffer.from(a);
  c.writeUInt32BE(1, c.indexOf('stsd') + 8); // the stsd's entry count: another description
  assert.notEqual(trackLayoutKey(parseInitSegment(a)), trackLayoutKey(parseInitSegment(c)));
  const d = syntheticInit([{ trackId: 1, handler: 'vide', timescale: 30000 }]);
  assert.notEqual(trackLayoutKey(parseInitSegment(a)), trackLayoutKey(parseInitSegment(d)), 'another timescale');
});
