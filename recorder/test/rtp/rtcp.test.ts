// RTCP: Sender Reports out of compound packets, BYE, and Receiver Reports built and read back.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildReceiverReport, delaySinceLastSrUnits, ntpToUnixMs, parseRtcp } from '../../src/rtp/rtcp.js';

// A camera's compound packet, byte by byte: SR (no report blocks) + SDES with a CNAME.
const COMPOUND = Buffer.from(
  [
    '80c80006', // V=2, RC=0, PT=200 (SR), length 6 words
    '2b3c4d5e', // sender SSRC
    'e93c7f00', // NTP seconds: 2024-01-01T00:00:00Z
    '80000000', // NTP fraction: .5 s
    'fffffc18', // RTP timestamp
    '000004d2', // packet count 1234
    '0012d687', // octet count 1234567
    '81ca0006', // V=2, SC=1, PT=202 (SDES), length 6 words
    '2b3c4d5e', // chunk SSRC
    '0110', // CNAME, 16 bytes
    Buffer.from('camera@10.0.0.17').toString('hex'),
    '0000', // END, and a null byte up to the word boundary
  ].join(''),
  'hex',
);

test('a Sender Report and the CNAME out of an SR+SDES compound packet', () => {
  assert.equal(COMPOUND.length, 56);
  const rtcp = parseRtcp(COMPOUND);
  assert.deepEqual(rtcp.senderReports, [
    { ssrc: 0x2b3c4d5e, ntpMs: Date.UTC(2024, 0, 1) + 500, ntpMiddle: 0x7f008000, rtpTimestamp: 0xfffffc18, packetCount: 1234, octetCount: 1234567 },
  ]);
  assert.deepEqual(rtcp.cnames, [{ ssrc: 0x2b3c4d5e, cname: 'camera@10.0.0.17' }]);
  assert.equal(rtcp.bye, false);
  assert.equal(rtcp.malformed, false);
});

test('BYE is reported; RR, unknown types and padding are stepped over; a bad length stops the walk', () => {
  const rr = Buffer.from('81c900072b3c4d5e' + '11111111' + '0a000003' + '00010005' + '00000010' + '7f008000' + '00010000', 'hex');
  const app = Buffer.from('80cc000200000001' + Buffer.from('test').toString('hex'), 'hex');
  const bye = Buffer.from('a1cb0002' + '2b3c4d5e' + '00000004', 'hex'); // padding bit, 4 bytes of padding
  const rtcp = parseRtcp(Buffer.concat([rr, app, bye]));
  assert.equal(rtcp.bye, true);
  assert.deepEqual(rtcp.byeSsrcs, [0x2b3c4d5e]);
  assert.equal(rtcp.receiverReports[0]?.blocks[0]?.fractionLost, 10);
  assert.equal(rtcp.malformed, false);
  const cut = parseRtcp(Buffer.concat([COMPOUND.subarray(0, 28), Buffer.from('81ca00ff', 'hex')]));
  assert.equal(cut.senderReports.length, 1);
  assert.equal(cut.malformed, true);
});

test('NTP time: the Unix epoch offset, the fraction, and era 1 after 2036', () => {
  assert.equal(ntpToUnixMs(2208988800, 0), 0);
  assert.equal(ntpToUnixMs(2208988800 + 1, 0x40000000), 1250);
  // 2036-02-07T06:28:16Z is NTP second 2^32 = era 1 second 0.
  assert.equal(ntpToUnixMs(1, 0), Date.UTC(2036, 1, 7, 6, 28, 17));
});

test('a Receiver Report with SDES CNAME, read back field by field', () => {
  const packet = buildReceiverReport({
    ssrc: 0xcafef00d,
    cname: 'vigil@recorder-1',
    report: {
      ssrc: 0x2b3c4d5e,
      fractionLost: 25,
      cumulativeLost: -3,
      extendedHighestSequence: 0x1fffe,
      jitter: 812.7,
      lastSr: 0x7f008000,
      delaySinceLastSr: delaySinceLastSrUnits(1500),
    },
  });
  assert.equal(packet.length % 4, 0);
  assert.equal(packet[1], 201, 'a compound packet starts with the RR');
  const rtcp = parseRtcp(packet);
  assert.equal(rtcp.malformed, false);
  assert.deepEqual(rtcp.receiverReports, [
    {
      ssrc: 0xcafef00d,
      blocks: [{ ssrc: 0x2b3c4d5e, fractionLost: 25, cumulativeLost: -3, extendedHighestSequence: 0x1fffe, jitter: 812, lastSr: 0x7f008000, delaySinceLastSr: 98304 }],
    },
  ]);
  assert.deepEqual(rtcp.cnames, [{ ssrc: 0xcafef00d, cname: 'vigil@recorder-1' }]);
});

test('an empty Receiver Report (nothing received yet) still carries the CNAME; CNAME lengths pad to the word', () => {
  for (const cname of ['a', 'ab', 'abc', 'abcd', 'vigil']) {
    const packet = buildReceiverReport({ ssrc: 1, cname });
    assert.equal(packet.length % 4, 0);
    assert.equal(packet[0], 0x80, 'RC=0');
    const rtcp = parseRtcp(packet);
    assert.deepEqual(rtcp.receiverReports, [{ ssrc: 1, blocks: [] }]);
    assert.deepEqual(rtcp.cnames, [{ ssrc: 1, cname }]);
    // The chunk ends in at least one null byte (the END item).
    assert.equal(packet[packet.length - 1], 0);
  }
});
