// The independent RTSP servers of the fixtures (rtsp-server-perl, VLC) behave as the ingest tests rely on: UDP only, VLC's BYE per loop.
import assert from 'node:assert/strict';
import { createSocket, type Socket } from 'node:dgram';
import { once } from 'node:events';
import { test, type TestContext } from 'node:test';
import { startPerlRtspServer } from '../src/rtsp-perl-server.js';
import { RtspTestClient, type RtspTestResponse } from '../src/rtsp-test-client.js';
import { startVlcRtspServer } from '../src/vlc-rtsp-server.js';

async function udpPair(): Promise<{ rtp: Socket; rtcp: Socket; port: number }> {
  for (;;) {
    const rtp = createSocket('udp4');
    rtp.bind(0, '127.0.0.1');
    await once(rtp, 'listening');
    const port = rtp.address().port;
    if (port % 2 === 0) {
      const rtcp = createSocket('udp4');
      try {
        rtcp.bind(port + 1, '127.0.0.1');
        await once(rtcp, 'listening');
        return { rtp, rtcp, port };
      } catch {
        rtcp.close();
      }
    }
    rtp.close();
  }
}

/** SETUP of `control` over UDP to a fresh port pair (closed after the test): the answer and the two sockets. */
async function setupOverUdp(t: TestContext, client: RtspTestClient, control: string): Promise<{ answer: RtspTestResponse; rtp: Socket; rtcp: Socket }> {
  const { rtp, rtcp, port } = await udpPair();
  t.after(() => {
    rtp.close();
    rtcp.close();
  });
  const answer = await client.request('SETUP', control, { Transport: `RTP/AVP;unicast;client_port=${port}-${port + 1}` });
  assert.equal(answer.status, 200);
  return { answer, rtp, rtcp };
}

/** The first m= section's control URL, resolved the way clients do. */
function firstControl(sdp: string, base: string): string {
  const media = sdp.split(/\r?\nm=/)[1] ?? '';
  const control = /a=control:(\S+)/.exec(media)?.[1] ?? '';
  if (/^rtsp:\/\//.test(control)) return control;
  return `${base.replace(/\/$/, '')}/${control}`;
}

test('rtsp-server-perl relays a published stream over UDP and answers 400 to interleaved TCP', { timeout: 60_000 }, async (t) => {
  const server = await startPerlRtspServer({ audio: true });
  t.after(() => server.stop());
  const client = await RtspTestClient.connect(server.port);
  t.after(() => client.close());
  const described = await client.request('DESCRIBE', server.url, { Accept: 'application/sdp' });
  assert.equal(described.status, 200);
  assert.match(described.body, /m=video .*\r?\n/);
  assert.match(described.body, /a=rtpmap:\d+ H264\/90000/);
  assert.match(described.body, /MPEG4-GENERIC/i);
  const control = firstControl(described.body, server.url);
  const tcp = await client.request('SETUP', control, { Transport: 'RTP/AVP/TCP;unicast;interleaved=0-1' });
  assert.equal(tcp.status, 400, 'interleaved TCP is refused');
  const { answer: udp, rtp } = await setupOverUdp(t, client, control);
  assert.match(udp.headers['transport'] ?? '', /server_port=\d+-\d+/);
  const play = await client.request('PLAY', server.url, { Session: (udp.headers['session'] ?? '').split(';')[0] ?? '' });
  assert.equal(play.status, 200);
  const [packet] = (await once(rtp, 'message')) as [Buffer];
  assert.equal((packet[0] ?? 0) >> 6, 2, 'RTP version 2 arrives over UDP');
});

test('VLC serves a looped clip over UDP only (461 to TCP) and ends each loop with an RTCP BYE', { timeout: 60_000 }, async (t) => {
  const server = await startVlcRtspServer({ seconds: 3 });
  t.after(() => server.stop());
  const client = await RtspTestClient.connect(server.port);
  t.after(() => client.close());
  const described = await client.request('DESCRIBE', server.url, { Accept: 'application/sdp' });
  assert.equal(described.status, 200);
  const control = firstControl(described.body, described.headers['content-base'] ?? server.url);
  const tcp = await client.request('SETUP', control, { Transport: 'RTP/AVP/TCP;unicast;interleaved=0-1' });
  assert.equal(tcp.status, 461, 'interleaved TCP is refused with 461 Unsupported transport');
  const { answer: udp, rtcp } = await setupOverUdp(t, client, control);
  const session = (udp.headers['session'] ?? '').split(';')[0] ?? '';
  const byeAt = new Promise<number>((resolve) => {
    rtcp.on('message', (msg: Buffer) => {
      // A compound packet: walk its packets for type 203 (BYE).
      for (let at = 0; at + 4 <= msg.length; at += (msg.readUInt16BE(at + 2) + 1) * 4) {
        if (msg[at + 1] === 203) resolve(Date.now());
      }
    });
  });
  const playedAt = Date.now();
  assert.equal((await client.request('PLAY', control.replace(/\/[^/]*$/, ''), { Session: session })).status, 200);
  const at = await Promise.race([byeAt, new Promise<number>((_, reject) => setTimeout(() => reject(new Error('no RTCP BYE within two loops')), 2 * 3_000 + 5_000))]);
  assert.ok(at - playedAt < 2 * 3_000 + 3_000, `BYE ${at - playedAt} ms after PLAY`);
});
