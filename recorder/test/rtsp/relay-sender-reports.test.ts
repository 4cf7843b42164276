// The credential relay holds the camera's RTCP Sender Reports back from ffmpeg (over UDP and TCP) and passes all else.
import assert from 'node:assert/strict';
import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { test, type TestContext } from 'node:test';
import { RtspTestClient } from '@vigil/testing/rtsp-test-client';
import { withoutSenderReports } from '../../src/rtsp/relay-rtcp.js';
import { RtspRelay } from '../../src/rtsp/rtsp-relay.js';
import { cameraScript, frame, rtpPacket, startFakeServer, until } from './helpers.js';

const SSRC = 0x11223344;

function senderReport(rtpTime: number): Buffer {
  const p = Buffer.alloc(28);
  p[0] = 0x80;
  p[1] = 200;
  p.writeUInt16BE(6, 2);
  p.writeUInt32BE(SSRC, 4);
  p.writeUInt32BE(0xe8000000, 8);
  p.writeUInt32BE(0x80000000, 12);
  p.writeUInt32BE(rtpTime, 16);
  return p;
}

function sdes(): Buffer {
  const p = Buffer.alloc(12);
  p[0] = 0x81;
  p[1] = 202;
  p.writeUInt16BE(2, 2);
  p.writeUInt32BE(SSRC, 4);
  p[8] = 1;
  p[9] = 1;
  p[10] = 0x78;
  return p;
}

function bye(): Buffer {
  const p = Buffer.alloc(8);
  p[0] = 0x81;
  p[1] = 203;
  p.writeUInt16BE(1, 2);
  p.writeUInt32BE(SSRC, 4);
  return p;
}

/** RTCP packet types in a compound, in order. */
function types(packet: Buffer): number[] {
  const out: number[] = [];
  for (let at = 0; at + 4 <= packet.length; at += (packet.readUInt16BE(at + 2) + 1) * 4) out.push(packet[at + 1] ?? 0);
  return out;
}

async function udpSocket(t: TestContext): Promise<{ socket: UdpSocket; port: number; received: Buffer[] }> {
  const socket = createSocket('udp4');
  const received: Buffer[] = [];
  socket.on('message', (msg) => received.push(msg));
  socket.bind(0, '127.0.0.1');
  await once(socket, 'listening');
  t.after(() => socket.close());
  return { socket, port: socket.address().port, received };
}

test('withoutSenderReports: the SR leaves a compound, the rest stays; a compound of only an SR is dropped; one without is passed as it is', () => {
  assert.deepEqual(types(withoutSenderReports(Buffer.concat([senderReport(1), sdes()])) as Buffer), [202]);
  assert.deepEqual(types(withoutSenderReports(Buffer.concat([senderReport(1), sdes(), bye()])) as Buffer), [202, 203], 'a BYE still ends ffmpeg\'s run');
  assert.equal(withoutSenderReports(senderReport(1)), undefined);
  const rr = Buffer.concat([Buffer.from([0x80, 201, 0, 1, 1, 2, 3, 4]), sdes()]);
  assert.equal(withoutSenderReports(rr), rr);
  const truncated = Buffer.concat([senderReport(1)]).subarray(0, 20);
  assert.equal(withoutSenderReports(truncated), truncated, 'a malformed compound is ffmpeg\'s to judge');
});

test('over UDP, a camera\'s RTP reaches ffmpeg intact, its RTCP without Sender Reports (BYE kept), and ffmpeg\'s receiver reports reach the camera', { timeout: 30_000 }, async (t) => {
  const camRtp = await udpSocket(t);
  const camRtcp = await udpSocket(t);
  const ffRtp = await udpSocket(t);
  const ffRtcp = await udpSocket(t);
  let relayPorts: [number, number] | undefined;
  const camera = await startFakeServer(cameraScript({
    SETUP: (req) => {
      const transport = req.headers.get('transport') ?? '';
      const m = /client_port=(\d+)-(\d+)/.exec(transport);
      relayPorts = m === null ? undefined : [Number(m[1]), Number(m[2])];
      return { status: 200, headers: { Session: 'fake-1;timeout=60', Transport: `${transport};server_port=${camRtp.port}-${camRtcp.port}` } };
    },
  }));
  t.after(() => camera.close());
  const relay = new RtspRelay();
  t.after(() => relay.close());
  const lease = await relay.lease(camera.url);
  const client = await RtspTestClient.connect(Number(new URL(lease.url).port));
  t.after(() => client.close());
  const setup = await client.request('SETUP', `${lease.url}/track1`, { Transport: `RTP/AVP/UDP;unicast;client_port=${ffRtp.port}-${ffRtcp.port}` });
  assert.equal(setup.status, 200);
  const answer = setup.headers['transport'] ?? '';
  assert.match(answer, new RegExp(`client_port=${ffRtp.port}-${ffRtcp.port}`), 'ffmpeg sees its own ports in the answer');
  assert.equal((await client.request('PLAY', lease.url, { Session: 'fake-1' })).status, 200);
  assert.ok(relayPorts !== undefined, `the camera was told where to send: ${camera.requests.map((r) => r.headers.get('transport')).join(' | ')}`);
  const [rtpPort, rtcpPort] = relayPorts;

  const media = rtpPacket(96, 7, 200);
  camRtp.socket.send(media, rtpPort, '127.0.0.1');
  camRtcp.socket.send(Buffer.concat([senderReport(90_000), sdes()]), rtcpPort, '127.0.0.1');
  camRtcp.socket.send(senderReport(180_000), rtcpPort, '127.0.0.1');
  camRtcp.socket.send(Buffer.concat([senderReport(270_000), sdes(), bye()]), rtcpPort, '127.0.0.1');
  await until(() => ffRtp.received.length >= 1 && ffRtcp.received.length >= 2, 10_000, 'RTP and RTCP at ffmpeg\'s ports');
  assert.ok(ffRtp.received[0]?.equals(media), 'RTP passes byte for byte');
  const rtcpTypes = ffRtcp.received.map(types);
  assert.ok(rtcpTypes.every((list) => !list.includes(200)), `no Sender Report reaches ffmpeg: ${JSON.stringify(rtcpTypes)}`);
  assert.ok(rtcpTypes.some((list) => list.includes(203)), 'the BYE does');

  // ffmpeg sends its receiver reports to the answer's source and server_port.
  const source = /source=([^;]+)/.exec(answer)?.[1] ?? '127.0.0.1';
  const serverRtcp = Number(/server_port=\d+-(\d+)/.exec(answer)?.[1]);
  const rr = Buffer.concat([Buffer.from([0x80, 201, 0, 1, 9, 9, 9, 9]), sdes()]);
  ffRtcp.socket.send(rr, serverRtcp, source);
  await until(() => camRtcp.received.some((p) => p.equals(rr)), 10_000, 'the receiver report at the camera');
});

test('over TCP, the RTCP channel of an interleaved SETUP loses its Sender Reports; RTP and the rest pass', { timeout: 30_000 }, async (t) => {
  const media = rtpPacket(96, 8, 300);
  const camera = await startFakeServer(cameraScript({
    SETUP: () => ({ status: 200, headers: { Session: 'fake-1;timeout=60', Transport: 'RTP/AVP/TCP;unicast;interleaved=0-1' } }),
    PLAY: (req, sock: Socket) => {
      setTimeout(() => {
        sock.write(frame(0, media));
        sock.write(frame(1, Buffer.concat([senderReport(90_000), sdes()])));
        sock.write(frame(1, senderReport(180_000)));
        sock.write(frame(1, Buffer.concat([sdes(), bye()])));
      }, 100);
      return { status: 200, headers: { Session: 'fake-1', 'RTP-Info': `url=${req.uri}track1;seq=1;rtptime=0` } };
    },
  }));
  t.after(() => camera.close());
  const relay = new RtspRelay();
  t.after(() => relay.close());
  const lease = await relay.lease(camera.url);
  const socket = connect({ port: Number(new URL(lease.url).port), host: '127.0.0.1' });
  t.after(() => socket.destroy());
  await once(socket, 'connect');
  let bytes = Buffer.alloc(0);
  socket.on('data', (chunk: Buffer) => {
    bytes = Buffer.concat([bytes, chunk]);
  });
  socket.write(`SETUP ${lease.url}/track1 RTSP/1.0\r\nCSeq: 1\r\nTransport: RTP/AVP/TCP;unicast;interleaved=0-1\r\n\r\n`);
  await until(() => bytes.includes('\r\n\r\n'), 10_000, 'the SETUP answer');
  socket.write(`PLAY ${lease.url} RTSP/1.0\r\nCSeq: 2\r\nSession: fake-1\r\n\r\n`);
  const frames = (): Array<{ channel: number; payload: Buffer }> => {
    const out: Array<{ channel: number; payload: Buffer }> = [];
    let at = 0;
    while (at < bytes.length) {
      if (bytes[at] === 0x24 && at + 4 <= bytes.length) {
        const len = bytes.readUInt16BE(at + 2);
        if (at + 4 + len > bytes.length) break;
        out.push({ channel: bytes[at + 1] ?? 0, payload: bytes.subarray(at + 4, at + 4 + len) });
        at += 4 + len;
      } else {
        const end = bytes.indexOf('\r\n\r\n', at);
        if (end < 0) break;
        at = end + 4;
      }
    }
    return out;
  };
  await until(() => frames().some((f) => f.channel === 1 && types(f.payload).includes(203)), 10_000, 'the BYE frame');
  const seen = frames();
  assert.ok(seen.some((f) => f.channel === 0 && f.payload.equals(media)), 'RTP passes byte for byte');
  const rtcp = seen.filter((f) => f.channel === 1).map((f) => types(f.payload));
  assert.deepEqual(rtcp, [[202], [202, 203]], 'the SR-only frame is dropped, the SR taken out of the other');
});
