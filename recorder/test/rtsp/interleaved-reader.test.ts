// Framing over reads: RTSP messages split at every byte, frames split across reads, oversized or garbage input.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { InterleavedReader } from '../../src/rtsp/interleaved-reader.js';
import { RtspProtocolError } from '../../src/rtsp/rtsp-errors.js';
import { MAX_HEADER_BYTES, serializeRequest, type RtspMessage } from '../../src/rtsp/rtsp-message.js';
import { frame, rtpPacket } from './helpers.js';

interface Seen {
  frames: { channel: number; payload: Buffer }[];
  messages: RtspMessage[];
}

function reader(): { r: InterleavedReader; seen: Seen } {
  const seen: Seen = { frames: [], messages: [] };
  // Payloads are views valid only during the call: copy them, as a real consumer must.
  const r = new InterleavedReader({
    frame: (channel, buffer, start, end) => seen.frames.push({ channel, payload: Buffer.from(buffer.subarray(start, end)) }),
    message: (m) => seen.messages.push(m),
  });
  return { r, seen };
}

const SDP = 'v=0\r\ns=x\r\nm=video 0 RTP/AVP 96\r\n';
const RESPONSE = Buffer.from(
  'RTSP/1.0 200 OK\r\nCSeq: 2\r\nContent-Base: rtsp://h/cam/\r\nWWW-Authenticate: Digest realm="a"\r\n' +
  `WWW-Authenticate: Basic realm="a"\r\nContent-Type: application/sdp\r\nContent-Length: ${SDP.length}\r\n\r\n${SDP}`,
);

function checkResponse(m: RtspMessage | undefined): void {
  assert.ok(m !== undefined && m.kind === 'response');
  assert.equal(m.status, 200);
  assert.equal(m.reason, 'OK');
  assert.equal(m.headers.get('cseq'), '2');
  assert.equal(m.headers.get('CONTENT-BASE'), 'rtsp://h/cam/');
  assert.deepEqual(m.headers.getAll('www-authenticate'), ['Digest realm="a"', 'Basic realm="a"']);
  assert.equal(m.body.toString(), SDP);
}

test('a response with a body parses the same when split at every byte boundary', () => {
  for (let cut = 0; cut <= RESPONSE.length; cut++) {
    const { r, seen } = reader();
    r.push(RESPONSE.subarray(0, cut));
    r.push(RESPONSE.subarray(cut));
    assert.equal(seen.messages.length, 1, `cut at ${cut}`);
    checkResponse(seen.messages[0]);
  }
  const { r, seen } = reader();
  for (let i = 0; i < RESPONSE.length; i++) r.push(RESPONSE.subarray(i, i + 1));
  checkResponse(seen.messages[0]);
});

test('frames and messages interleaved, every split point between two reads', () => {
  const a = rtpPacket(96, 1, 1400);
  const b = rtpPacket(96, 2, 20);
  const rtcp = Buffer.alloc(52, 0x81);
  const keepAlive = Buffer.from('RTSP/1.0 200 OK\nCSeq: 9\n\n'); // LF-only, as some cameras answer
  const serverRequest = Buffer.from('OPTIONS * RTSP/1.0\r\nCSeq: 77\r\n\r\n');
  const stream = Buffer.concat([frame(0, a), keepAlive, frame(1, rtcp), Buffer.from('\r\n'), serverRequest, frame(0, b), frame(2, Buffer.alloc(0))]);
  for (let cut = 0; cut <= stream.length; cut++) {
    const { r, seen } = reader();
    r.push(stream.subarray(0, cut));
    r.push(stream.subarray(cut));
    assert.deepEqual(seen.frames.map((f) => f.channel), [0, 1, 0, 2], `cut at ${cut}`);
    assert.ok(seen.frames[0]?.payload.equals(a));
    assert.ok(seen.frames[1]?.payload.equals(rtcp));
    assert.ok(seen.frames[2]?.payload.equals(b));
    assert.equal(seen.frames[3]?.payload.length, 0);
    assert.equal(seen.messages.length, 2);
    const [resp, req] = seen.messages;
    assert.ok(resp?.kind === 'response' && resp.headers.get('cseq') === '9');
    assert.ok(req?.kind === 'request' && req.method === 'OPTIONS' && req.uri === '*' && req.headers.get('cseq') === '77');
  }
});

test('a maximal 65535-byte frame split across three reads', () => {
  const big = Buffer.alloc(0xffff, 7);
  big[0] = 0x80;
  const stream = Buffer.concat([frame(4, big), frame(5, Buffer.from([1, 2, 3]))]);
  const { r, seen } = reader();
  r.push(stream.subarray(0, 3));
  r.push(stream.subarray(3, 40_000));
  r.push(stream.subarray(40_000));
  assert.equal(seen.frames.length, 2);
  assert.ok(seen.frames[0]?.payload.equals(big));
  assert.deepEqual([...(seen.frames[1]?.payload ?? [])], [1, 2, 3]);
});

test('a frame inside a read is delivered as a range of the read buffer, not a copy', () => {
  const chunk = frame(0, rtpPacket(96, 1));
  const got: { buffer?: Buffer; start?: number; end?: number } = {};
  new InterleavedReader({ frame: (_c, buffer, start, end) => Object.assign(got, { buffer, start, end }), message: () => undefined }).push(chunk);
  assert.equal(got.buffer, chunk);
  assert.deepEqual([got.start, got.end], [4, chunk.length]);
});

test('only the bytes read count: what a shared read buffer holds past them is never parsed', () => {
  const { r, seen } = reader();
  const packet = rtpPacket(96, 7, 100);
  const whole = frame(0, packet);
  // A shared buffer: this read's bytes (the frame's first 60), then what an earlier, longer read left behind.
  const shared = Buffer.concat([whole.subarray(0, 60), Buffer.from('RTSP/1.0 200 OK\r\nCSeq: 1\r\n\r\n'), Buffer.alloc(200, 0x99)]);
  r.push(shared, 60);
  assert.equal(seen.frames.length + seen.messages.length, 0);
  r.push(whole.subarray(60));
  assert.equal(seen.messages.length, 0);
  assert.deepEqual(seen.frames.map((f) => [f.channel, f.payload.equals(packet)]), [[0, true]]);
});

test('an endless header line is a protocol error once it passes 64 KiB', () => {
  const { r } = reader();
  const line = Buffer.alloc(8192, 0x61);
  r.push(Buffer.from('RTSP/1.0 200 OK\r\nX-Junk: '));
  assert.throws(() => {
    for (let i = 0; i < MAX_HEADER_BYTES / line.length + 1; i++) r.push(line);
  }, RtspProtocolError);
});

test('garbage, a bad status line and an oversized body are protocol errors', () => {
  assert.throws(() => reader().r.push(Buffer.from([0x00, 0x01])), RtspProtocolError);
  assert.throws(() => reader().r.push(Buffer.from('RTSP/1.0 abc\r\n\r\n')), RtspProtocolError);
  assert.throws(() => reader().r.push(Buffer.from('RTSP/1.0 200 OK\r\nContent-Length: 1000000\r\n\r\n')), /larger than/);
  assert.throws(() => reader().r.push(Buffer.from('RTSP/1.0 200 OK\r\nContent-Length: -1\r\n\r\n')), RtspProtocolError);
});

test('requests serialise with headers in order and refuse line breaks', () => {
  const bytes = serializeRequest({ method: 'SETUP', uri: 'rtsp://h/cam/track1', headers: { CSeq: '3', Session: undefined, Transport: 'RTP/AVP/TCP;unicast;interleaved=0-1' } });
  assert.equal(bytes.toString(), 'SETUP rtsp://h/cam/track1 RTSP/1.0\r\nCSeq: 3\r\nTransport: RTP/AVP/TCP;unicast;interleaved=0-1\r\n\r\n');
  assert.throws(() => serializeRequest({ method: 'OPTIONS', uri: 'rtsp://h/', headers: { X: 'a\r\nInjected: 1' } }), RtspProtocolError);
});
