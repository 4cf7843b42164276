// AAC RTP depacketizing (RFC 3640): AU headers, several frames per packet, fragmented frames, losses, the SDP config.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AacDepacketizer, parseAudioSpecificConfig } from '../../src/rtp/aac-depacketizer.js';
import { UnsupportedPayloadError } from '../../src/rtp/depacketizer.js';
import { bits } from './bit-fields.js';
import { collector, feed, PacketSequence } from './rtp-builder.js';

const HBR = { mode: 'AAC-hbr', sizelength: '13', indexlength: '3', indexdeltalength: '3', config: '1190', streamtype: '5' };
const LBR = { mode: 'AAC-lbr', sizelength: '6', indexlength: '2', indexdeltalength: '2', config: '1190' };

/** An RFC 3640 payload: AU-headers-length, the headers (size + index/delta), then the data. */
function payload(sizes: number[], data: Buffer, sizeLength = 13, indexLength = 3, deltas: number[] = []): Buffer {
  const headers = bits(sizes.flatMap((size, i): Array<[number, number]> => [[size, sizeLength], [deltas[i] ?? 0, indexLength]]));
  const length = Buffer.alloc(2);
  length.writeUInt16BE(sizes.length * (sizeLength + indexLength));
  return Buffer.concat([length, headers, data]);
}

const frame = (n: number, size: number): Buffer => Buffer.alloc(size, n);

function setup(fmtp: Record<string, string> = HBR, clockRate?: number): { d: AacDepacketizer; c: ReturnType<typeof collector>; s: PacketSequence } {
  const c = collector();
  return { d: new AacDepacketizer({ onUnit: c.onUnit, fmtp, ...(clockRate !== undefined ? { clockRate } : {}) }), c, s: new PacketSequence() };
}

test('AAC-hbr with 3 frames in one packet: each its own unit, 1024 ticks apart', () => {
  const { d, c, s } = setup();
  const frames = [frame(1, 200), frame(2, 150), frame(3, 300)];
  feed(d, [s.next(0xfffffc00, payload([200, 150, 300], Buffer.concat(frames)), true)]);
  const units = c.audio();
  assert.deepEqual(units.map((u) => u.data), frames, 'copies, intact although the read buffer was overwritten');
  assert.deepEqual(units.map((u) => u.rtpTimestamp), [0xfffffc00, 0, 1024], 'timestamps wrap at 2^32');
  assert.equal(units[0]?.codec, 'aac');
  assert.equal(d.stats.units, 3);
});

test('a frame fragmented over three packets is reassembled; the marker is on the last', () => {
  const { d, c, s } = setup();
  const big = Buffer.concat([frame(7, 500), frame(8, 500), frame(9, 200)]);
  feed(d, [
    s.next(1024, payload([1200], big.subarray(0, 500))),
    s.next(1024, payload([1200], big.subarray(500, 1000))),
    s.next(1024, payload([1200], big.subarray(1000)), true),
    s.next(2048, payload([10], frame(4, 10)), true),
  ]);
  assert.deepEqual(c.audio().map((u) => [u.rtpTimestamp, u.data.length]), [[1024, 1200], [2048, 10]]);
  assert.deepEqual(c.audio()[0]?.data, big);
});

test('a loss drops the fragmented frame being put together, not the frames around it', () => {
  const { d, c, s } = setup();
  const big = Buffer.alloc(900, 5);
  const before = s.next(0, payload([10], frame(1, 10)), true);
  const fragments = [0, 300, 600].map((at, i) => s.next(1024, payload([900], big.subarray(at, at + 300)), i === 2));
  feed(d, [before, fragments[0]!, fragments[2]!, s.next(2048, payload([10], frame(2, 10)), true)]);
  assert.deepEqual(c.audio().map((u) => u.rtpTimestamp), [0, 2048]);
  assert.deepEqual([d.stats.lostPackets, d.stats.droppedUnits], [1, 1]);
  // The loss hit the first fragment: the rest of that frame is dropped too, counted once.
  const again = [0, 300, 600].map((at, i) => s.next(3072, payload([900], big.subarray(at, at + 300)), i === 2));
  feed(d, [again[1]!, again[2]!, s.next(4096, payload([10], frame(3, 10)), true)]);
  assert.deepEqual(c.audio().map((u) => u.rtpTimestamp), [0, 2048, 4096]);
  assert.deepEqual([d.stats.lostPackets, d.stats.droppedUnits], [2, 2]);
});

test('AAC-lbr: 6-bit sizes and 2-bit indexes', () => {
  const { d, c, s } = setup(LBR);
  feed(d, [s.next(0, payload([20, 30], Buffer.concat([frame(1, 20), frame(2, 30)]), 6, 2), true)]);
  assert.deepEqual(c.audio().map((u) => [u.rtpTimestamp, u.data.length]), [[0, 20], [1024, 30]]);
});

test('constantduration sets the step; a non-zero AU-Index-delta (interleaving) or short data is malformed', () => {
  const { d, c, s } = setup({ ...HBR, constantduration: '960' });
  feed(d, [
    s.next(0, payload([5, 5], Buffer.alloc(10)), true),
    s.next(1920, payload([5, 5], Buffer.alloc(10), 13, 3, [0, 1]), true),
    s.next(3840, payload([5, 50], Buffer.alloc(10)), true),
  ]);
  assert.deepEqual(c.audio().map((u) => u.rtpTimestamp), [0, 960]);
  assert.equal(d.stats.malformedPackets, 2);
});

test('AudioSpecificConfig: object type, rate (index or explicit), channels, frame length', () => {
  assert.deepEqual(
    { ...parseAudioSpecificConfig(Buffer.from('1190', 'hex')), audioSpecificConfig: undefined },
    { codec: 'aac', audioSpecificConfig: undefined, objectType: 2, sampleRate: 48000, channels: 2, frameLength: 1024 },
  );
  const mono44 = parseAudioSpecificConfig(Buffer.from('1208', 'hex'));
  assert.deepEqual([mono44.sampleRate, mono44.channels], [44100, 1]);
  // Object type 2, index 15 + 24-bit 12345 Hz, channel config 1, frameLengthFlag 1 (960).
  const explicit = parseAudioSpecificConfig(bits([[2, 5], [15, 4], [12345, 24], [1, 4], [1, 1], [0, 2]]));
  assert.deepEqual([explicit.sampleRate, explicit.channels, explicit.frameLength], [12345, 1, 960]);
  // HE-AAC with explicit SBR: type 5, core 24 kHz stereo, extension 48 kHz, core type 2.
  const he = parseAudioSpecificConfig(bits([[5, 5], [6, 4], [2, 4], [3, 4], [2, 5], [0, 3]]));
  assert.deepEqual([he.objectType, he.sampleRate, he.channels, he.frameLength], [5, 24000, 2, 1024]);
  assert.throws(() => parseAudioSpecificConfig(Buffer.from('1180', 'hex')), UnsupportedPayloadError, 'channel configuration 0 (PCE)');
  assert.throws(() => parseAudioSpecificConfig(Buffer.from('11', 'hex')), UnsupportedPayloadError);
});

test('HE-AAC at a doubled RTP clock: frames are 2048 ticks apart', () => {
  const { d, c, s } = setup({ ...HBR, config: bits([[5, 5], [6, 4], [2, 4], [3, 4], [2, 5], [0, 3]]).toString('hex') }, 48000);
  assert.equal(d.clockRate, 48000);
  feed(d, [s.next(0, payload([5, 5], Buffer.alloc(10)), true)]);
  assert.deepEqual(c.audio().map((u) => u.rtpTimestamp), [0, 2048]);
});

test('unsupported modes and configs are refused with UnsupportedPayloadError', () => {
  for (const fmtp of [{ ...HBR, mode: 'generic' }, { ...HBR, mode: 'CELP-cbr' }, { ...HBR, config: '' }, { ...HBR, config: 'xyz' }, { ...HBR, streamtype: '4' }]) {
    assert.throws(() => setup(fmtp), UnsupportedPayloadError, JSON.stringify(fmtp));
  }
  const { d } = setup({ mode: 'aac-hbr', config: '1208' });
  assert.deepEqual([d.clockRate, d.config.sampleRate, d.config.channels], [44100, 44100, 1], 'field lengths default by mode; clock rate from the config');
});
