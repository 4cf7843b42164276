// Which payloads get a native depacketizer, and which go back to ffmpeg with an error that names them.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createDepacketizer, UnsupportedPayloadError } from '../../src/rtp/depacketizer-factory.js';

const noop = (): void => undefined;

test('H264, H265/HEVC and MPEG4-GENERIC in any case', () => {
  assert.equal(createDepacketizer('H264', 90000, { 'packetization-mode': '1' }, noop).codec, 'h264');
  assert.equal(createDepacketizer('h264', 90000, {}, noop).codec, 'h264');
  assert.equal(createDepacketizer('H265', 90000, {}, noop).codec, 'h265');
  assert.equal(createDepacketizer('hevc', 90000, {}, noop).codec, 'h265');
  const aac = createDepacketizer('mpeg4-generic', 16000, { mode: 'AAC-hbr', config: '1408' }, noop);
  assert.equal(aac.kind, 'audio');
  assert.equal(aac.clockRate, 16000);
  if (aac.kind === 'audio') assert.equal(aac.config.sampleRate, 16000);
});

test('everything else throws UnsupportedPayloadError naming the payload', () => {
  const refused: Array<[string, Record<string, string>, RegExp]> = [
    ['PCMU', {}, /PCMU/],
    ['MP4V-ES', {}, /MP4V-ES/],
    ['MP4A-LATM', {}, /MP4A-LATM/],
    ['H264', { 'packetization-mode': '2' }, /H264 packetization-mode=2/],
    ['H265', { 'sprop-max-don-diff': '1' }, /H265 sprop-max-don-diff=1/],
    ['MPEG4-GENERIC', { mode: 'CELP-vbr', config: '1408' }, /MPEG4-GENERIC mode=CELP-vbr/],
    ['MPEG4-GENERIC', { mode: 'AAC-hbr' }, /MPEG4-GENERIC config/],
  ];
  for (const [encoding, fmtp, message] of refused) {
    assert.throws(
      () => createDepacketizer(encoding, 90000, fmtp, noop),
      (e: unknown) => e instanceof UnsupportedPayloadError && message.test(e.message) && message.test(e.payload),
      encoding,
    );
  }
});
