// Unit tests for codec strings built from hand-made avcC, hvcC and esds records.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { avcCodecString, hevcCodecString, mimeTypeFor, mp4aCodecString } from '../../src/media/codec-string.js';
import { parseAudioSpecificConfig } from '../../src/media/esds.js';

test('avcCodecString: profile, constraint flags and level as upper-case hex', () => {
  assert.equal(avcCodecString(Buffer.from([1, 0x64, 0x00, 0x1f, 0xff])), 'avc1.64001F');
  assert.equal(avcCodecString(Buffer.from([1, 0x42, 0xc0, 0x0a])), 'avc1.42C00A');
  assert.equal(avcCodecString(Buffer.from([1, 0x4d, 0x40, 0x1e]), 'avc3'), 'avc3.4D401E');
  assert.throws(() => avcCodecString(Buffer.from([1, 0x64])));
});

function hvcC(b1: number, compat: number, constraints: number[], level: number): Buffer {
  const b = Buffer.alloc(23);
  b[0] = 1;
  b[1] = b1;
  b.writeUInt32BE(compat >>> 0, 2);
  constraints.forEach((c, i) => (b[6 + i] = c));
  b[12] = level;
  return b;
}

test('hevcCodecString follows ISO/IEC 14496-15 Annex E', () => {
  // Main profile, compatible with Main and Main 10 (flags 1 and 2), level 3.1, progressive/frame-only.
  assert.equal(hevcCodecString(hvcC(0x01, 0x60000000, [0xb0], 93), 'hvc1'), 'hvc1.1.6.L93.B0');
  assert.equal(hevcCodecString(hvcC(0x02, 0x20000000, [0xb0], 120), 'hev1'), 'hev1.2.4.L120.B0');
  // Profile space 1, high tier, compat flags reversed (0x82000000 -> 0x41), trailing zero bytes dropped.
  assert.equal(hevcCodecString(hvcC(0x40 | 0x20 | 0x04, 0x82000000, [0xb0, 0x23, 0, 0, 0, 0], 120), 'hev1'), 'hev1.A4.41.H120.B0.23');
  assert.equal(hevcCodecString(hvcC(0x01, 0x40000000, [], 60), 'hvc1'), 'hvc1.1.2.L60');
  assert.throws(() => hevcCodecString(Buffer.alloc(5), 'hvc1'));
});

/** esds payload (after version/flags) for MPEG-4 audio with the given AudioSpecificConfig. */
function esds(asc: number[], longLengths = false): Buffer {
  const len = (n: number): number[] => (longLengths ? [0x80, 0x80, 0x80, n] : [n]);
  const dsi = [0x05, ...len(asc.length), ...asc];
  const dcd = [0x40, 0x15, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, ...dsi];
  const es = [0x00, 0x01, 0x00, 0x04, ...len(dcd.length), ...dcd, 0x06, ...len(1), 0x02];
  return Buffer.from([0x03, ...len(es.length), ...es]);
}

test('mp4aCodecString reads objectTypeIndication and audioObjectType', () => {
  assert.equal(mp4aCodecString(esds([0x12, 0x10])), 'mp4a.40.2'); // AAC-LC 44.1 kHz stereo
  assert.equal(mp4aCodecString(esds([0x11, 0x90], true)), 'mp4a.40.2'); // 4-byte lengths, as ffmpeg writes
  assert.equal(mp4aCodecString(esds([0x2b, 0x92, 0x08, 0x00])), 'mp4a.40.5'); // HE-AAC
  assert.equal(mp4aCodecString(esds([0xf9, 0x40, 0x00])), 'mp4a.40.42'); // escape: 32 + 10
  const mp3 = esds([]);
  mp3[mp3.indexOf(0x40)] = 0x6b;
  assert.equal(mp4aCodecString(mp3), 'mp4a.6B');
  assert.equal(mp4aCodecString(Buffer.from([0x03, 0x01])), '');
});

test('parseAudioSpecificConfig: sample rate and channels', () => {
  assert.deepEqual(parseAudioSpecificConfig(Buffer.from([0x11, 0x88])), { audioObjectType: 2, sampleRate: 48000, channels: 1 });
  assert.deepEqual(parseAudioSpecificConfig(Buffer.from([0x12, 0x10])), { audioObjectType: 2, sampleRate: 44100, channels: 2 });
  assert.equal(parseAudioSpecificConfig(Buffer.alloc(0)), undefined);
});

test('mimeTypeFor joins known codecs', () => {
  const base = { defaultSampleDuration: 0, defaultSampleFlags: 0, timescale: 1 };
  const video = { ...base, trackId: 1, handler: 'vide', codec: 'avc1.4D401E' };
  const audio = { ...base, trackId: 2, handler: 'soun', codec: 'mp4a.40.2' };
  const data = Buffer.alloc(0);
  assert.equal(mimeTypeFor({ data, tracks: [video, audio], video }), 'video/mp4; codecs="avc1.4D401E,mp4a.40.2"');
  assert.equal(mimeTypeFor({ data, tracks: [audio] }), 'audio/mp4; codecs="mp4a.40.2"');
  assert.equal(mimeTypeFor({ data, tracks: [{ ...video, codec: '' }] }), 'video/mp4');
});
