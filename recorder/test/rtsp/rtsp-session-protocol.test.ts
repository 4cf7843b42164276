// The RTSP client against a scripted server: keep-alive, server requests, frames, timeouts, protocol errors, closes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ReadScheduler } from '../../src/rtsp/read-scheduler.js';
import { RtspClosedError, RtspError, RtspProtocolError, RtspStatusError, RtspTimeoutError } from '../../src/rtsp/rtsp-errors.js';
import { RtspSession, type RtspSessionOptions } from '../../src/rtsp/rtsp-session.js';
import { cameraScript, frame, rtpPacket, startFakeServer, until, type FakeServer } from './helpers.js';

interface Seen {
  rtp: { track: number; seq: number }[];
  rtcp: number[];
  closes: (Error | undefined)[];
}

async function playing(server: FakeServer, extra: Partial<RtspSessionOptions> = {}): Promise<{ session: RtspSession; seen: Seen }> {
  const seen: Seen = { rtp: [], rtcp: [], closes: [] };
  const session = await RtspSession.open({
    url: server.url,
    readScheduler: new ReadScheduler({ tickMs: 40 }),
    timeoutMs: 1000,
    onRtp: (track, buffer, start) => seen.rtp.push({ track, seq: buffer.readUInt16BE(start + 2) }),
    onRtcp: (track) => seen.rtcp.push(track),
    onClose: (err) => seen.closes.push(err),
    ...extra,
  });
  await session.setup([0]);
  await session.play();
  return { session, seen };
}

test('keep-alive: GET_PARAMETER with the session id every timeout/2; frames and server requests on the same stream', { timeout: 15_000 }, async (t) => {
  const server = await startFakeServer(cameraScript({}, 'abc123;timeout=2'));
  t.after(() => server.close());
  const { session, seen } = await playing(server);
  t.after(() => session.close());
  assert.equal(session.tracks[0]?.rtpInfo?.seq, 100);
  assert.equal(session.tracks[0]?.rtpInfo?.rtptime, 5000);
  const client = [...server.clients][0];
  assert.ok(client !== undefined);
  client.write(Buffer.concat([
    frame(0, rtpPacket(96, 1)),
    frame(1, Buffer.from([0x80, 200, 0, 0])),
    frame(7, rtpPacket(96, 99)), // a channel nobody set up: ignored
    Buffer.from('OPTIONS * RTSP/1.0\r\nCSeq: 41\r\n\r\n'),
    Buffer.from('ANNOUNCE rtsp://127.0.0.1/cam RTSP/1.0\r\nCSeq: 42\r\nContent-Length: 4\r\n\r\nabcd'),
    frame(0, rtpPacket(96, 2)),
  ]));
  await until(() => seen.rtp.length === 2 && seen.rtcp.length === 1, 2000, 'frames');
  assert.deepEqual(seen.rtp, [{ track: 0, seq: 1 }, { track: 0, seq: 2 }]);
  await until(() => server.requests.filter((r) => r.method === 'RTSP/1.0').length === 2, 2000, 'answers to the server requests');
  const answers = server.requests.filter((r) => r.method === 'RTSP/1.0').map((r) => `${r.uri} ${r.headers.get('cseq') ?? ''}`);
  assert.deepEqual(answers, ['200 41', '501 42']);
  await until(() => session.keepAlives >= 2, 4000, 'two keep-alives');
  const keepAlives = server.requests.filter((r) => r.method === 'GET_PARAMETER');
  assert.ok(keepAlives.every((r) => r.headers.get('session') === 'abc123'));
  assert.deepEqual(seen.closes, []);
});

test('keep-alive falls back to OPTIONS when Public lacks GET_PARAMETER', { timeout: 15_000 }, async (t) => {
  const server = await startFakeServer(cameraScript({ OPTIONS: () => ({ status: 200, headers: { Public: 'OPTIONS, DESCRIBE, SETUP, PLAY, TEARDOWN' } }) }, 's1;timeout=2'));
  t.after(() => server.close());
  const { session } = await playing(server);
  t.after(() => session.close());
  await until(() => session.keepAlives >= 1, 3000, 'a keep-alive');
  assert.equal(server.requests.filter((r) => r.method === 'OPTIONS').length, 2);
  assert.equal(server.requests.filter((r) => r.method === 'GET_PARAMETER').length, 0);
});

test('an unanswered keep-alive closes the session with an RtspTimeoutError', { timeout: 15_000 }, async (t) => {
  const server = await startFakeServer(cameraScript({ GET_PARAMETER: () => undefined }, 's1;timeout=2'));
  t.after(() => server.close());
  const { seen } = await playing(server, { timeoutMs: 500 });
  await until(() => seen.closes.length > 0, 4000, 'onClose');
  assert.ok(seen.closes[0] instanceof RtspTimeoutError, String(seen.closes[0]));
  await until(() => server.clients.size === 0, 2000, 'the socket closed');
  assert.equal(seen.closes.length, 1);
});

test('garbage after PLAY is a protocol error that closes the session', { timeout: 10_000 }, async (t) => {
  const server = await startFakeServer(cameraScript());
  t.after(() => server.close());
  const { session, seen } = await playing(server);
  [...server.clients][0]?.write(Buffer.concat([frame(0, rtpPacket(96, 1)), Buffer.from([0x00, 0xff, 0x13])]));
  await until(() => seen.closes.length > 0, 3000, 'onClose');
  assert.ok(seen.closes[0] instanceof RtspProtocolError, String(seen.closes[0]));
  assert.equal(seen.rtp.length, 1);
  assert.equal(session.closed, true);
  assert.equal(session.sendRtcp(0, Buffer.alloc(8)), false);
});

test('the server hanging up ends the session once with an RtspClosedError', { timeout: 10_000 }, async (t) => {
  const server = await startFakeServer(cameraScript());
  t.after(() => server.close());
  const { seen } = await playing(server);
  for (const c of server.clients) c.destroy();
  await until(() => seen.closes.length > 0, 3000, 'onClose');
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.equal(seen.closes.length, 1);
  assert.ok(seen.closes[0] instanceof RtspClosedError);
});

test('an exception thrown by onRtp closes the session with it', { timeout: 10_000 }, async (t) => {
  const server = await startFakeServer(cameraScript());
  t.after(() => server.close());
  const boom = new Error('consumer bug');
  const { seen } = await playing(server, { onRtp: () => { throw boom; } });
  [...server.clients][0]?.write(frame(0, rtpPacket(96, 1)));
  await until(() => seen.closes.length > 0, 3000, 'onClose');
  assert.equal(seen.closes[0], boom);
});

test('sendRtcp writes a $ frame on the track\'s odd channel', { timeout: 10_000 }, async (t) => {
  const server = await startFakeServer(cameraScript());
  t.after(() => server.close());
  const { session } = await playing(server);
  t.after(() => session.close());
  const rr = Buffer.from([0x80, 201, 0, 1, 1, 2, 3, 4]);
  assert.equal(session.sendRtcp(0, rr), true);
  assert.equal(session.sendRtcp(5, rr), false, 'no such track');
  await until(() => server.frames.length === 1, 2000, 'the frame');
  assert.equal(server.frames[0]?.channel, 1);
  assert.ok(server.frames[0]?.payload.equals(rr));
});

test('an endless header from the camera is refused at 64 KiB', { timeout: 10_000 }, async (t) => {
  const server = await startFakeServer(cameraScript({ DESCRIBE: () => ({ raw: `RTSP/1.0 200 OK\r\nCSeq: 2\r\nX-Junk: ${'a'.repeat(100_000)}` }) }));
  t.after(() => server.close());
  await assert.rejects(RtspSession.open({ url: server.url, readScheduler: new ReadScheduler() }), (err: Error) => err instanceof RtspProtocolError && /64|65536/.test(err.message));
});

test('a request without an answer rejects with an RtspTimeoutError and closes the connection', { timeout: 10_000 }, async (t) => {
  const server = await startFakeServer(cameraScript({ DESCRIBE: () => undefined }));
  t.after(() => server.close());
  const started = Date.now();
  await assert.rejects(RtspSession.open({ url: server.url, readScheduler: new ReadScheduler(), timeoutMs: 400 }), RtspTimeoutError);
  assert.ok(Date.now() - started < 2000);
  await until(() => server.clients.size === 0, 2000, 'the socket closed');
});

test('a refused SETUP is an RtspStatusError with the status; close() still resolves', { timeout: 10_000 }, async (t) => {
  const server = await startFakeServer(cameraScript({ SETUP: () => ({ status: 461 }) }));
  t.after(() => server.close());
  const closes: (Error | undefined)[] = [];
  const session = await RtspSession.open({ url: server.url, readScheduler: new ReadScheduler(), onClose: (e) => closes.push(e) });
  await assert.rejects(session.setup([0]), (err: Error) => err instanceof RtspStatusError && err.status === 461 && err.method === 'SETUP');
  await session.close();
  assert.deepEqual(closes, [undefined]);
  assert.equal(server.requests.some((r) => r.method === 'TEARDOWN'), false, 'no session to tear down');
});

test('bad options and unreachable cameras fail clearly, without the password', { timeout: 10_000 }, async () => {
  const scheduler = new ReadScheduler();
  await assert.rejects(RtspSession.open({ url: 'rtsp://127.0.0.1:1/cam', transport: 'quic' as 'tcp', readScheduler: scheduler }), /unknown RTSP transport/);
  await assert.rejects(RtspSession.open({ url: 'http://u:hunter22@cam/', readScheduler: scheduler }), (err: Error) => err instanceof RtspError && !err.message.includes('hunter22'));
  await assert.rejects(RtspSession.open({ url: 'rtsp://u:hunter22@127.0.0.1:1/cam', readScheduler: scheduler }), (err: Error) => err instanceof RtspClosedError && !`${err.message}${err.stack ?? ''}`.includes('hunter22'));
  assert.throws(() => new ReadScheduler({ tickMs: -1 }), RangeError);
});
