// RTP header parsing: fields, CSRCs, header extension, padding, and what is refused.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createRtpHeader, looksLikeRtcp, parseRtpHeader, rtpMarker, rtpPayloadType, rtpSequenceNumber, rtpSsrc, rtpTimestamp } from '../../src/rtp/rtp-packet.js';
import { rtpPacket } from './rtp-builder.js';

const PAYLOAD = Buffer.from([1, 2, 3, 4, 5]);

test('the fixed header fields, and the payload right after it', () => {
  const packet = rtpPacket({ seq: 65535, ts: 0xfffffff0, marker: true, payloadType: 97, ssrc: 0xdeadbeef }, PAYLOAD);
  const h = createRtpHeader();
  assert.equal(parseRtpHeader(packet, h), true);
  assert.deepEqual(h, {
    marker: true,
    payloadType: 97,
    sequenceNumber: 65535,
    timestamp: 0xfffffff0,
    ssrc: 0xdeadbeef,
    csrcCount: 0,
    extensionProfile: -1,
    paddingBytes: 0,
    payloadOffset: 12,
    payloadEnd: 17,
  });
  assert.deepEqual([rtpSequenceNumber(packet), rtpTimestamp(packet), rtpSsrc(packet), rtpPayloadType(packet), rtpMarker(packet)], [65535, 0xfffffff0, 0xdeadbeef, 97, true]);
});

test('CSRCs and a header extension are skipped, padding is stripped', () => {
  const packet = rtpPacket({ seq: 1, ts: 2, csrcs: [7, 8, 9], extension: Buffer.alloc(8, 0xaa), padding: 4 }, PAYLOAD);
  const h = createRtpHeader();
  assert.equal(parseRtpHeader(packet, h), true);
  assert.equal(h.csrcCount, 3);
  assert.equal(h.extensionProfile, 0xbede);
  assert.equal(h.paddingBytes, 4);
  assert.equal(h.marker, false);
  assert.deepEqual(packet.subarray(h.payloadOffset, h.payloadEnd), PAYLOAD);
});

test('a packet inside a larger buffer: the same fields, offsets in that buffer, padding counted from the range end', () => {
  const packet = rtpPacket({ seq: 9, ts: 90_000, csrcs: [5], extension: Buffer.alloc(4, 0xaa), padding: 3 }, PAYLOAD);
  const alone = createRtpHeader();
  assert.equal(parseRtpHeader(packet, alone), true);
  const shared = Buffer.concat([Buffer.alloc(21, 0x80), packet, Buffer.from([0xff, 0xff, 0x00])]);
  const inside = createRtpHeader();
  assert.equal(parseRtpHeader(shared, inside, 21, 21 + packet.length), true);
  assert.deepEqual(inside, { ...alone, payloadOffset: alone.payloadOffset + 21, payloadEnd: alone.payloadEnd + 21 });
  assert.deepEqual(shared.subarray(inside.payloadOffset, inside.payloadEnd), PAYLOAD);
  assert.equal(parseRtpHeader(shared, createRtpHeader(), 21, 21 + 11), false, 'a range shorter than the fixed header');
});

test('one header struct is reused: every field is overwritten', () => {
  const h = createRtpHeader();
  parseRtpHeader(rtpPacket({ seq: 1, ts: 2, marker: true, csrcs: [1], extension: Buffer.alloc(4), padding: 2 }, PAYLOAD), h);
  parseRtpHeader(rtpPacket({ seq: 3, ts: 4 }, PAYLOAD), h);
  assert.deepEqual([h.marker, h.csrcCount, h.extensionProfile, h.paddingBytes, h.payloadOffset, h.payloadEnd], [false, 0, -1, 0, 12, 17]);
});

test('not RTP: short, version other than 2, lengths past the end, zero padding count', () => {
  const h = createRtpHeader();
  const good = rtpPacket({ seq: 1, ts: 2 }, PAYLOAD);
  assert.equal(parseRtpHeader(good.subarray(0, 11), h), false);
  const v1 = Buffer.from(good);
  v1[0] = 0x40;
  assert.equal(parseRtpHeader(v1, h), false);
  const csrcs = Buffer.from(good);
  csrcs[0] = 0x80 | 5;
  assert.equal(parseRtpHeader(csrcs, h), false);
  const ext = rtpPacket({ seq: 1, ts: 2, extension: Buffer.alloc(4) }, Buffer.alloc(0));
  ext.writeUInt16BE(9, 14);
  assert.equal(parseRtpHeader(ext, h), false);
  const pad = Buffer.from(good);
  pad[0] = 0xa0;
  pad[pad.length - 1] = 0;
  assert.equal(parseRtpHeader(pad, h), false);
  pad[pad.length - 1] = 6;
  assert.equal(parseRtpHeader(pad, h), false);
  pad[pad.length - 1] = 5;
  assert.equal(parseRtpHeader(pad, h), true);
  assert.equal(h.payloadEnd, h.payloadOffset);
});

test('RTCP on the RTP channel is told apart by its packet type', () => {
  assert.equal(looksLikeRtcp(Buffer.from([0x80, 200, 0, 6])), true);
  assert.equal(looksLikeRtcp(Buffer.from([0x81, 201, 0, 1])), true);
  assert.equal(looksLikeRtcp(rtpPacket({ seq: 1, ts: 2, marker: true, payloadType: 96 }, PAYLOAD)), false);
});
