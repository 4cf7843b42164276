// H.264 RTP depacketizing: packetization modes, access unit boundaries, parameter sets, and the loss rules.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { UnsupportedPayloadError } from '../../src/rtp/depacketizer.js';
import { H264Depacketizer } from '../../src/rtp/h264-depacketizer.js';
import { aggregate, collector, feed, fuA, h264, nal, PacketSequence, rtpPacket } from './rtp-builder.js';

// SPS (pps id irrelevant), PPS with pic_parameter_set_id 0 (ue '1') and 1 (ue '010').
const SPS = nal(h264(7), 8, 7);
const PPS0 = Buffer.from([0x68, 0xce, 0x3c, 0x80]);
const PPS1 = Buffer.from([0x68, 0x4e, 0x3c, 0x80]);
const IDR = nal(h264(5), 60, 5);
const P = (n: number): Buffer => nal([0x41], 40, n);

function setup(fmtp: Record<string, string> = {}): { d: H264Depacketizer; c: ReturnType<typeof collector>; s: PacketSequence } {
  const c = collector();
  return { d: new H264Depacketizer({ onUnit: c.onUnit, fmtp }), c, s: new PacketSequence() };
}

const types = (nalus: Buffer[]): number[] => nalus.map((n) => (n[0] ?? 0) & 0x1f);

test('single NAL unit packets: SPS/PPS go to parameterSets, the IDR makes a keyframe unit emitted on the marker', () => {
  const { d, c, s } = setup();
  feed(d, [s.next(3000, SPS), s.next(3000, PPS0), s.next(3000, nal(h264(9), 1)), s.next(3000, nal(h264(6), 10)), s.next(3000, IDR, true)]);
  const [unit, ...rest] = c.video();
  assert.equal(rest.length, 0);
  assert.ok(unit);
  assert.deepEqual(types(unit.nalus), [6, 5], 'AUD dropped, SEI kept, no parameter sets');
  assert.deepEqual(unit.nalus[1], IDR, 'a copy, intact although the read buffer was overwritten');
  assert.equal(unit.bytes, unit.nalus[0]!.length + IDR.length);
  assert.equal(unit.keyframe, true);
  assert.equal(unit.rtpTimestamp, 3000);
  assert.equal(unit.codec, 'h264');
  assert.deepEqual(d.parameterSets, { codec: 'h264', sps: SPS, pps: [PPS0] });
  assert.equal(d.parameterSetsVersion, 1);
  assert.equal(unit.parameterSetsVersion, 1);
  assert.deepEqual({ ...d.stats }, { packets: 5, lostPackets: 0, droppedUnits: 0, skippedUnits: 0, units: 1, malformedPackets: 0, ignoredPackets: 0 });
});

test('STAP-A with SPS+PPS+IDR, then P-frames in FU-A; filler data dropped', () => {
  const { d, c, s } = setup();
  const filler = nal(h264(12), 5);
  feed(d, [s.next(0, aggregate([0x78], [SPS, PPS0, IDR]), true), ...s.unit(3600, fuA(P(1), 15)), s.next(7200, aggregate([0x78], [P(2), filler]), true)]);
  const units = c.video();
  assert.equal(units.length, 3);
  assert.deepEqual(units.map((u) => u.keyframe), [true, false, false]);
  assert.deepEqual(units[0]!.nalus, [IDR]);
  assert.deepEqual(units[1]!.nalus, [P(1)], 'FU-A reassembled with its NAL header');
  assert.deepEqual(units[2]!.nalus, [P(2)]);
  assert.deepEqual(d.parameterSets?.pps, [PPS0]);
});

test('an access unit ends on the marker, or when the timestamp changes without one', () => {
  const { d, c, s } = setup({ 'sprop-parameter-sets': `${SPS.toString('base64')},${PPS0.toString('base64')}` });
  assert.equal(d.parameterSetsVersion, 1, 'from the SDP');
  // Two slices per picture and no markers at all.
  feed(d, [s.next(100, IDR), s.next(100, nal(h264(5), 30, 9)), s.next(3700, P(1)), s.next(3700, P(2))]);
  assert.equal(c.units.length, 1, 'the first picture ended when the second timestamp came');
  assert.deepEqual(types(c.video()[0]!.nalus), [5, 5]);
  d.flush();
  assert.equal(c.units.length, 2);
  assert.deepEqual(c.video()[1]!.nalus, [P(1), P(2)]);
  assert.equal(c.video()[1]!.rtpTimestamp, 3700);
  // With a marker the unit goes out right away, before any later packet.
  feed(d, [s.next(7300, P(3), true)]);
  assert.equal(c.units.length, 3);
});

test('a gap inside an FU-A drops that unit and every P-frame after it until the next IDR', () => {
  const { d, c, s } = setup();
  const idr = s.next(0, aggregate([0x78], [SPS, PPS0, IDR]), true);
  const frame1 = s.unit(3600, fuA(P(1), 10));
  assert.ok(frame1.length >= 3);
  feed(d, [
    idr,
    ...frame1.filter((_, i) => i !== 1),
    ...s.unit(7200, fuA(P(2), 10)),
    s.next(10800, P(3), true),
    ...s.unit(14400, [SPS, PPS0, ...fuA(IDR, 25)]),
    s.next(18000, P(4), true),
  ]);
  assert.deepEqual(c.video().map((u) => u.rtpTimestamp), [0, 14400, 18000]);
  assert.equal(c.video()[1]!.keyframe, true);
  assert.deepEqual(c.video()[1]!.nalus, [IDR]);
  assert.equal(d.stats.lostPackets, 1);
  assert.equal(d.stats.droppedUnits, 1);
  assert.equal(d.stats.skippedUnits, 2);
  assert.equal(d.parameterSetsVersion, 1, 'the same SPS/PPS again is no change');
});

test('after a lost marker packet the broken unit is dropped, and a keyframe that starts cleanly is kept', () => {
  const { d, c, s } = setup();
  const idr = s.next(0, aggregate([0x78], [SPS, PPS0, IDR]), true);
  const frame1 = s.unit(3600, [P(1), P(2)]);
  feed(d, [idr, frame1[0]!, s.next(7200, aggregate([0x78], [SPS, PPS0, IDR]), true)]);
  assert.deepEqual(c.video().map((u) => u.rtpTimestamp), [0, 7200]);
  assert.equal(d.stats.droppedUnits, 1);
  // A gap before a packet that starts mid-picture (second slice: first_mb_in_slice not 0): that unit is suspect too.
  const secondSlice = Buffer.from(IDR);
  secondSlice[1] = 0x40;
  s.seq++;
  feed(d, [s.next(10800, secondSlice, true), s.next(14400, P(3), true), s.next(18000, IDR, true)]);
  assert.deepEqual(c.video().map((u) => u.rtpTimestamp), [0, 7200, 18000]);
  assert.equal(d.stats.droppedUnits, 2);
  assert.equal(d.stats.skippedUnits, 1);
  // A gap before a whole P-frame: not broken in itself, but its reference may be lost, so it waits for a keyframe.
  s.seq++;
  feed(d, [s.next(21600, P(4), true), s.next(25200, IDR, true)]);
  assert.deepEqual(c.video().map((u) => u.rtpTimestamp), [0, 7200, 18000, 25200]);
  assert.equal(d.stats.skippedUnits, 2);
  assert.equal(d.stats.lostPackets, 3);
});

test('FU-A without its start, or a start without its end, drops the unit', () => {
  const { d, c, s } = setup({ 'sprop-parameter-sets': `${SPS.toString('base64')},${PPS0.toString('base64')}` });
  const [start, middle, end] = fuA(P(1), 15);
  assert.ok(start && middle && end);
  feed(d, [
    s.next(0, IDR, true),
    s.next(3600, middle),
    s.next(3600, end, true),
    s.next(7200, IDR, true),
    s.next(10800, start),
    s.next(10800, P(2), true),
    s.next(14400, IDR, true),
  ]);
  assert.deepEqual(c.video().map((u) => u.rtpTimestamp), [0, 7200, 14400]);
  assert.equal(d.stats.droppedUnits, 2);
  assert.equal(d.stats.malformedPackets, 2);
  assert.equal(d.stats.lostPackets, 0);
});

test('a duplicate packet is ignored; 65535 → 0 is not a loss', () => {
  const { d, c } = setup({ 'sprop-parameter-sets': `${SPS.toString('base64')},${PPS0.toString('base64')}` });
  const s = new PacketSequence(65534);
  const idr = s.unit(0, fuA(IDR, 25));
  assert.equal(idr.length, 3);
  feed(d, [idr[0]!, idr[1]!, idr[1]!, idr[2]!, s.next(3600, P(1), true), idr[2]!]);
  assert.deepEqual(c.video().map((u) => u.rtpTimestamp), [0, 3600]);
  assert.deepEqual(c.video()[0]!.nalus, [IDR]);
  assert.equal(d.stats.lostPackets, 0);
  assert.equal(d.stats.ignoredPackets, 2);
  assert.equal(d.receptionReport()?.extendedHighestSequence, 0x10001);
});

test('decoding starts at the first keyframe; nothing is emitted before parameter sets are known', () => {
  const { d, c, s } = setup();
  feed(d, [s.next(0, P(1), true), s.next(3600, IDR, true), s.next(7200, SPS), s.next(7200, PPS0), s.next(7200, IDR, true), s.next(10800, P(2), true)]);
  assert.deepEqual(c.video().map((u) => u.rtpTimestamp), [7200, 10800]);
  assert.equal(d.stats.skippedUnits, 2);
  assert.equal(d.stats.droppedUnits, 0);
});

test('a changed SPS or a new PPS bumps parameterSetsVersion and gives a new parameterSets object', () => {
  const { d, c, s } = setup();
  feed(d, [s.next(0, aggregate([0x78], [SPS, PPS0, IDR]), true)]);
  const first = d.parameterSets;
  feed(d, [s.next(3600, aggregate([0x78], [SPS, PPS0, PPS1, P(1)]), true)]);
  assert.equal(d.parameterSetsVersion, 2);
  assert.deepEqual(d.parameterSets?.pps, [PPS0, PPS1], 'PPSs kept by id');
  const sps2 = nal(h264(7), 8, 8);
  feed(d, [s.next(7200, aggregate([0x78], [sps2, PPS0, IDR]), true)]);
  assert.equal(d.parameterSetsVersion, 3);
  assert.deepEqual(d.parameterSets?.sps, sps2);
  assert.deepEqual(first, { codec: 'h264', sps: SPS, pps: [PPS0] }, 'an earlier snapshot is never changed');
  assert.deepEqual(c.video().map((u) => u.parameterSetsVersion), [1, 2, 3]);
});

test('STAP-B, MTAP and FU-B (mode 2) are malformed and break the unit; packetization-mode=2 is refused', () => {
  const { d, c, s } = setup({ 'sprop-parameter-sets': `${SPS.toString('base64')},${PPS0.toString('base64')}`, 'packetization-mode': '1' });
  feed(d, [s.next(0, IDR, true), s.next(3600, Buffer.from([0x79, 0, 0, 0, 4, 0x41, 1, 2, 3]), true), s.next(7200, IDR, true)]);
  assert.deepEqual(c.video().map((u) => u.rtpTimestamp), [0, 7200]);
  assert.equal(d.stats.malformedPackets, 1);
  assert.equal(d.stats.droppedUnits, 1);
  assert.throws(() => setup({ 'packetization-mode': '2' }), (e: unknown) => e instanceof UnsupportedPayloadError && /H264 packetization-mode=2/.test(e.message));
});

test('padding, CSRCs and a header extension around the payload are skipped', () => {
  const { d, c } = setup({ 'sprop-parameter-sets': `${SPS.toString('base64')},${PPS0.toString('base64')}` });
  feed(d, [rtpPacket({ seq: 1, ts: 0, marker: true, padding: 7, csrcs: [5, 6], extension: Buffer.from([1, 2, 3, 4, 5, 6, 7, 8]) }, IDR)]);
  assert.deepEqual(c.video()[0]?.nalus, [IDR]);
});

test('a new SSRC is a restart: the unit in progress is dropped and decoding waits for a keyframe', () => {
  const { d, c } = setup({ 'sprop-parameter-sets': `${SPS.toString('base64')},${PPS0.toString('base64')}` });
  const a = new PacketSequence(10, 1);
  const b = new PacketSequence(5000, 2);
  feed(d, [a.next(0, IDR, true), a.next(3600, P(1)), b.next(90, P(2), true), b.next(3690, IDR, true)]);
  assert.deepEqual(c.video().map((u) => u.rtpTimestamp), [0, 3690]);
  assert.equal(d.ssrc, 2);
  assert.equal(d.stats.lostPackets, 0);
});

test('reset drops the unit in progress and keeps the parameter sets', () => {
  const { d, c, s } = setup();
  feed(d, [s.next(0, aggregate([0x78], [SPS, PPS0, IDR]), true), s.next(3600, P(1))]);
  d.reset();
  d.flush();
  const after = new PacketSequence(7);
  feed(d, [after.next(7200, P(2), true), after.next(10800, IDR, true)]);
  assert.deepEqual(c.video().map((u) => u.rtpTimestamp), [0, 10800]);
  assert.equal(d.parameterSetsVersion, 1);
});
