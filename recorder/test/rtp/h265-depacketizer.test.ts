// H.265 RTP depacketizing: single NAL units, AP, FU, parameter sets, IRAP keyframes, and the loss rules.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { UnsupportedPayloadError } from '../../src/rtp/depacketizer.js';
import { H265Depacketizer } from '../../src/rtp/h265-depacketizer.js';
import { aggregate, collector, feed, fuH265, h265, nal, PacketSequence } from './rtp-builder.js';

const VPS = nal(h265(32), 10, 32);
const SPS = nal(h265(33), 12, 33);
// pps_pic_parameter_set_id 0 (ue '1').
const PPS = Buffer.from([34 << 1, 1, 0xc1, 0x72]);
const IDR = nal(h265(19), 80, 19);
const CRA = nal(h265(21), 80, 21);
const TRAIL = (n: number): Buffer => nal(h265(1), 40, n);
const AP_HEADER = [48 << 1, 1];
const SDP = { 'sprop-vps': VPS.toString('base64'), 'sprop-sps': SPS.toString('base64'), 'sprop-pps': PPS.toString('base64') };

function setup(fmtp: Record<string, string> = {}): { d: H265Depacketizer; c: ReturnType<typeof collector>; s: PacketSequence } {
  const c = collector();
  return { d: new H265Depacketizer({ onUnit: c.onUnit, fmtp }), c, s: new PacketSequence() };
}

const types = (nalus: Buffer[]): number[] => nalus.map((n) => ((n[0] ?? 0) >> 1) & 0x3f);

test('AP with VPS+SPS+PPS+IDR: parameter sets captured, the IDR is a keyframe; AUD dropped, SEI kept', () => {
  const { d, c, s } = setup();
  const aud = nal(h265(35), 1);
  const sei = nal(h265(39), 6);
  feed(d, [s.next(0, aggregate(AP_HEADER, [aud, VPS, SPS, PPS, sei, IDR]), true), s.next(3600, TRAIL(1), true)]);
  const [key, p] = c.video();
  assert.ok(key && p);
  assert.deepEqual(types(key.nalus), [39, 19]);
  assert.deepEqual(key.nalus[1], IDR);
  assert.equal(key.keyframe, true);
  assert.equal(key.codec, 'h265');
  assert.deepEqual(p.nalus, [TRAIL(1)]);
  assert.equal(p.keyframe, false);
  assert.deepEqual(d.parameterSets, { codec: 'h265', vps: VPS, sps: SPS, pps: [PPS] });
  assert.equal(d.parameterSetsVersion, 1);
});

test('FU reassembly with the two-byte NAL header; a CRA is a keyframe too', () => {
  const { d, c, s } = setup(SDP);
  assert.equal(d.parameterSetsVersion, 1, 'from sprop-vps/sps/pps');
  const fragments = fuH265(CRA, 25);
  assert.equal(fragments.length, 4);
  feed(d, [...s.unit(0, fragments), ...s.unit(3600, fuH265(TRAIL(2), 15))]);
  assert.deepEqual(c.video().map((u) => u.nalus), [[CRA], [TRAIL(2)]]);
  assert.deepEqual(c.video().map((u) => u.keyframe), [true, false]);
});

test('a gap inside an FU drops the unit and the following pictures until the next IRAP', () => {
  const { d, c, s } = setup(SDP);
  const first = s.next(0, IDR, true);
  const broken = s.unit(3600, fuH265(TRAIL(1), 10));
  feed(d, [first, ...broken.slice(0, 2), ...broken.slice(3), s.next(7200, TRAIL(2), true), s.next(10800, TRAIL(3), true), ...s.unit(14400, fuH265(IDR, 30)), s.next(18000, TRAIL(4), true)]);
  assert.deepEqual(c.video().map((u) => u.rtpTimestamp), [0, 14400, 18000]);
  assert.deepEqual(c.video()[1]?.nalus, [IDR]);
  assert.deepEqual([d.stats.lostPackets, d.stats.droppedUnits, d.stats.skippedUnits], [1, 1, 2]);
});

test('unit boundaries by timestamp change; a duplicate is ignored', () => {
  const { d, c, s } = setup(SDP);
  const idr = s.next(0, IDR);
  const endOfSequence = Buffer.from([36 << 1, 1]);
  feed(d, [idr, idr, s.next(3600, TRAIL(1)), s.next(7200, TRAIL(2)), s.next(7200, endOfSequence, true)]);
  assert.deepEqual(c.video().map((u) => u.rtpTimestamp), [0, 3600, 7200]);
  assert.deepEqual(c.video()[2]?.nalus, [TRAIL(2), endOfSequence]);
  assert.equal(d.stats.ignoredPackets, 1);
});

test('an FU end without its start drops the unit; PACI is malformed; 51–63 are ignored', () => {
  const { d, c, s } = setup(SDP);
  const fragments = fuH265(TRAIL(1), 15);
  feed(d, [
    s.next(0, IDR, true),
    ...s.unit(3600, fragments.slice(1)),
    s.next(7200, IDR, true),
    s.next(10800, Buffer.from([50 << 1, 1, 0, 0, 2, 2, 1, 0x80]), true),
    s.next(14400, IDR, true),
    s.next(18000, Buffer.from([55 << 1, 1, 9, 9])),
    s.next(18000, TRAIL(5), true),
  ]);
  assert.deepEqual(c.video().map((u) => u.rtpTimestamp), [0, 7200, 14400, 18000]);
  assert.deepEqual([d.stats.droppedUnits, d.stats.malformedPackets], [2, 3]);
});

test('decoding order numbers (sprop-max-don-diff > 0) are refused with a message that says so', () => {
  assert.throws(
    () => setup({ 'sprop-max-don-diff': '2' }),
    (e: unknown) => e instanceof UnsupportedPayloadError && /sprop-max-don-diff=2/.test(e.message) && /DONL/.test(e.message),
  );
  assert.doesNotThrow(() => setup({ 'sprop-max-don-diff': '0' }));
});

test('a new SPS bumps the version; units wait for VPS, SPS and PPS all known', () => {
  const { d, c, s } = setup();
  feed(d, [s.next(0, aggregate(AP_HEADER, [SPS, PPS, IDR]), true)]);
  assert.equal(d.parameterSets, undefined, 'no VPS yet');
  assert.equal(c.units.length, 0);
  feed(d, [s.next(3600, aggregate(AP_HEADER, [VPS, SPS, PPS, IDR]), true)]);
  assert.equal(d.parameterSetsVersion, 1);
  const sps2 = nal(h265(33), 12, 34);
  feed(d, [s.next(7200, aggregate(AP_HEADER, [VPS, sps2, PPS, IDR]), true)]);
  assert.equal(d.parameterSetsVersion, 2);
  assert.deepEqual(c.video().map((u) => u.parameterSetsVersion), [1, 2]);
});
