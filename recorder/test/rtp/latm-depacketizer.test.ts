// MP4A-LATM depacketizing (RFC 3016/6416): the SDP StreamMuxConfig, whole, fragmented and concatenated elements, in-band configs, losses.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createDepacketizer } from '../../src/rtp/depacketizer-factory.js';
import { UnsupportedPayloadError } from '../../src/rtp/depacketizer.js';
import { LatmDepacketizer, latmUnsupportedReason } from '../../src/rtp/latm-depacketizer.js';
import { parseStreamMuxConfig } from '../../src/rtp/stream-mux-config.js';
import { bits } from './bit-fields.js';
import { ascFields, element, muxConfigFields, muxConfigHex } from './latm-builder.js';
import { collector, feed, PacketSequence } from './rtp-builder.js';

const frame = (n: number, size: number): Buffer => Buffer.alloc(size, n);

function setup(fmtp: Record<string, string>, clockRate?: number): { d: LatmDepacketizer; c: ReturnType<typeof collector>; s: PacketSequence } {
  const c = collector();
  return { d: new LatmDepacketizer({ onUnit: c.onUnit, fmtp, ...(clockRate !== undefined ? { clockRate } : {}) }), c, s: new PacketSequence() };
}

test('the StreamMuxConfig gives the AudioSpecificConfig byte-aligned, as an esds needs it', () => {
  // What ffmpeg's RTP muxer writes for 48 kHz mono AAC-LC (-rtpflags latm).
  const ffmpeg = parseStreamMuxConfig('400023103fc0');
  assert.deepEqual(ffmpeg.aac.audioSpecificConfig, Buffer.from('1188', 'hex'), 'AAC-LC, 48 kHz, mono');
  assert.deepEqual([ffmpeg.aac.objectType, ffmpeg.aac.sampleRate, ffmpeg.aac.channels, ffmpeg.aac.frameLength], [2, 48000, 1, 1024]);
  assert.deepEqual([ffmpeg.framesPerElement, ffmpeg.otherDataBits, ffmpeg.crcPresent], [1, 0, false]);
  // GStreamer's rtpmp4apay stops right after the AudioSpecificConfig: the rest takes the usual values.
  const gst = parseStreamMuxConfig('40002310');
  assert.deepEqual(gst.aac.audioSpecificConfig, Buffer.from('1188', 'hex'));
  assert.equal(gst.framesPerElement, 1);
  const stereo44 = parseStreamMuxConfig(muxConfigHex({ frequencyIndex: 4, channels: 2, framesPerElement: 3, otherDataBits: 16, crc: true }));
  assert.deepEqual(stereo44.aac.audioSpecificConfig, bits(ascFields({ frequencyIndex: 4, channels: 2 })));
  assert.deepEqual([stereo44.aac.sampleRate, stereo44.aac.channels, stereo44.framesPerElement, stereo44.otherDataBits, stereo44.crcPresent], [44100, 2, 3, 16, true]);
  assert.equal(parseStreamMuxConfig(muxConfigHex({ frameLengthFlag: true })).aac.frameLength, 960);
});

test('what the StreamMuxConfig reader refuses, it names', () => {
  const refused: Array<[string, RegExp]> = [
    [muxConfigHex({ programs: 2 }), /2 programs/],
    [muxConfigHex({ channels: 0 }), /channel configuration 0/],
    [muxConfigHex({ objectType: 8 }), /audio object type 8/],
    [bits([[0, 1], [1, 1], [0, 6], [0, 4], [0, 3], [2, 5]]).toString('hex'), /cut off/],
    ['zz', /MP4A-LATM config=zz/],
  ];
  for (const [hex, message] of refused) {
    assert.throws(() => parseStreamMuxConfig(hex), (e: unknown) => e instanceof UnsupportedPayloadError && message.test(e.payload), hex);
  }
  assert.match(latmUnsupportedReason({ cpresent: '1' }) ?? '', /without config=.*in-band/);
  assert.equal(latmUnsupportedReason({ cpresent: '0', config: '400023103fc0' }), undefined);
  assert.throws(() => createDepacketizer('MP4A-LATM', 48000, { cpresent: '0' }, () => undefined), UnsupportedPayloadError);
  assert.equal(createDepacketizer('mp4a-latm', 48000, { cpresent: '0', config: '400023103fc0' }, () => undefined).codec, 'aac');
});

test('one frame per packet (cpresent=0): each its own unit with the packet timestamp', () => {
  const { d, c, s } = setup({ cpresent: '0', config: '400023103fc0' });
  const frames = [frame(1, 10), frame(2, 300), frame(3, 255)];
  feed(d, frames.map((f, i) => s.next(0xfffffc00 + i * 1024, element([f]), true)));
  assert.deepEqual(c.audio().map((u) => u.data), frames, 'copies, intact although the read buffer was overwritten; sizes of 255 and more');
  assert.deepEqual(c.audio().map((u) => u.rtpTimestamp), [0xfffffc00, 0, 1024]);
  assert.equal(d.clockRate, 48000);
  assert.deepEqual([d.stats.units, d.stats.malformedPackets, d.stats.droppedUnits], [3, 0, 0]);
});

test('an element fragmented over packets (marker on the last) and several elements in one packet', () => {
  const { d, c, s } = setup({ cpresent: '0', config: '400023103fc0' });
  const big = Buffer.concat([frame(7, 500), frame(8, 500)]);
  const whole = element([big]);
  const packets = [
    ...s.unit(1024, [whole.subarray(0, 400), whole.subarray(400, 800), whole.subarray(800)]),
    // Two elements concatenated: the second frame is one frame length later.
    s.next(2048, Buffer.concat([element([frame(4, 10)]), element([frame(5, 20)])]), true),
  ];
  feed(d, packets);
  assert.deepEqual(c.audio().map((u) => [u.rtpTimestamp, u.data.length]), [[1024, 1000], [2048, 10], [3072, 20]]);
  assert.deepEqual(c.audio()[0]?.data, big);
});

test('several frames per element and other data: frames one frame length apart, other data skipped', () => {
  const config = muxConfigHex({ framesPerElement: 2, otherDataBits: 12 });
  const { d, c, s } = setup({ cpresent: '0', config }, 90000);
  feed(d, [s.next(0, element([frame(1, 30), frame(2, 40)], { otherDataBits: 12 }), true)]);
  // At a 90 kHz clock a 1024-sample frame at 48 kHz lasts 1920 ticks.
  assert.deepEqual(c.audio().map((u) => [u.rtpTimestamp, u.data.length]), [[0, 30], [1920, 40]]);
});

test('cpresent=1: the in-band config is read; one that differs from the SDP is dropped as malformed', () => {
  const { d, c, s } = setup({ cpresent: '1', config: muxConfigHex() });
  feed(d, [
    s.next(0, element([frame(1, 50)], { muxConfig: muxConfigFields() }), true),
    s.next(1024, element([frame(2, 60)], { muxConfig: true }), true),
    s.next(2048, element([frame(3, 70)], { muxConfig: muxConfigFields({ channels: 2 }) }), true),
  ]);
  assert.deepEqual(c.audio().map((u) => [u.rtpTimestamp, u.data[0], u.data.length]), [[0, 1, 50], [1024, 2, 60]]);
  assert.equal(d.stats.malformedPackets, 1);
});

test('a loss drops the element it broke, and nothing whole after it', () => {
  const { d, c, s } = setup({ cpresent: '0', config: '400023103fc0' });
  // Bytes of 200: the tail, read from its start, gives a length longer than itself.
  const whole = element([frame(200, 900)]);
  const [first, middle, last] = s.unit(1024, [whole.subarray(0, 300), whole.subarray(300, 600), whole.subarray(600)]);
  const after = s.next(2048, element([frame(8, 20)]), true);
  const next = s.next(3072, element([frame(9, 20)]), true);
  // The middle fragment is lost: the tail must not be taken for an element of its own.
  feed(d, [first as Buffer, last as Buffer, after, next]);
  assert.deepEqual(c.audio().map((u) => u.rtpTimestamp), [2048, 3072]);
  assert.equal(d.stats.lostPackets, 1);
  assert.equal(d.stats.droppedUnits, 2, 'the element in progress, and the tail read after the loss');
  void middle;
});

test('a whole element right after a loss is kept; a fragment whose marker never came is dropped', () => {
  const { d, c, s } = setup({ cpresent: '0', config: '400023103fc0' });
  const p0 = s.next(0, element([frame(1, 20)]), true);
  s.seq++; // lost
  const p2 = s.next(2048, element([frame(3, 20)]), true);
  const open = s.next(3072, element([frame(4, 600)]).subarray(0, 100), false);
  const p4 = s.next(4096, element([frame(5, 20)]), true);
  feed(d, [p0, p2, open, p4]);
  assert.deepEqual(c.audio().map((u) => u.rtpTimestamp), [0, 2048, 4096]);
  assert.equal(d.stats.droppedUnits, 1);
});

test('a payload that does not read as elements is malformed, never a crash; a runaway element is bounded', () => {
  const { d, c, s } = setup({ cpresent: '0', config: '400023103fc0' });
  feed(d, [s.next(0, Buffer.from([200, 1, 2]), true), s.next(1024, Buffer.alloc(0), true)]);
  assert.equal(c.audio().length, 0);
  assert.equal(d.stats.malformedPackets, 2);
  for (let i = 0; i < 300; i++) d.push(s.next(2048, Buffer.alloc(1000, 255)), 0);
  assert.ok(d.stats.malformedPackets >= 3, 'fragments of one timestamp past 256 KiB are given up');
  feed(d, [s.next(3072, element([frame(6, 20)]), true)]);
  assert.deepEqual(c.audio().map((u) => u.rtpTimestamp), [3072], 'and the stream goes on');
});
