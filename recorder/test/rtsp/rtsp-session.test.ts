// The RTSP client against a real camera (GStreamer): play over TCP and UDP, RTP/RTCP, coalesced reads, TEARDOWN, camera loss.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startRtspCamera, type RtspCamera } from '@vigil/testing/rtsp-camera';
import { ReadScheduler } from '../../src/rtsp/read-scheduler.js';
import { RtspClosedError } from '../../src/rtsp/rtsp-errors.js';
import { RtspSession, defaultMediaIndexes } from '../../src/rtsp/rtsp-session.js';
import { startProxy, until } from './helpers.js';

let camera: RtspCamera;

before(async () => {
  camera = await startRtspCamera({ width: 640, height: 360, fps: 25, gop: 25, bitrateKbps: 1500 });
});
after(() => camera.stop());

interface Counts {
  rtp: number;
  rtcp: number;
  badRtp: number;
  senderReports: number;
  closes: (Error | undefined)[];
}

function counting(expectedPt: () => number | undefined): { counts: Counts; handlers: Pick<Parameters<typeof RtspSession.open>[0], 'onRtp' | 'onRtcp' | 'onClose'> } {
  const counts: Counts = { rtp: 0, rtcp: 0, badRtp: 0, senderReports: 0, closes: [] };
  return {
    counts,
    handlers: {
      onRtp: (track, buffer, start, end) => {
        const packet = buffer.subarray(start, end);
        counts.rtp++;
        if (track !== 0 || packet[0] === undefined || packet[0] >> 6 !== 2 || ((packet[1] ?? 0) & 0x7f) !== expectedPt()) counts.badRtp++;
      },
      onRtcp: (_track, packet) => {
        counts.rtcp++;
        if ((packet[0] ?? 0) >> 6 === 2 && packet[1] === 200) counts.senderReports++;
      },
      onClose: (err) => counts.closes.push(err),
    },
  };
}

test('TCP: DESCRIBE, SETUP, PLAY; RTP with the SDP payload type, RTCP sender reports, coalesced reads; close sends TEARDOWN', { timeout: 30_000 }, async () => {
  const proxy = await startProxy(camera.port);
  const scheduler = new ReadScheduler({ tickMs: 40 });
  let pt: number | undefined;
  const { counts, handlers } = counting(() => pt);
  const session = await RtspSession.open({ url: `rtsp://127.0.0.1:${proxy.port}/cam`, readScheduler: scheduler, timeoutMs: 5000, ...handlers });
  try {
    const video = session.sdp.media.find((m) => m.type === 'video');
    assert.ok(video !== undefined);
    pt = video.payloadTypes[0];
    assert.equal(video.rtpmap.get(pt ?? -1)?.encodingName, 'H264');
    assert.ok(video.fmtp.get(pt ?? -1)?.['sprop-parameter-sets'] !== undefined);
    const tracks = await session.setup(defaultMediaIndexes(session.sdp));
    assert.equal(tracks.length, 1);
    assert.equal(tracks[0]?.rtpChannel, 0);
    const played = await session.play();
    assert.equal(played.rtpInfo[0]?.track, 0);
    assert.equal(typeof tracks[0]?.rtpInfo?.seq, 'number');
    const start = Date.now();
    const readsAtPlay = scheduler.reads;
    const rtpAtPlay = counts.rtp;

    await until(() => counts.rtp > 20, 5000, 'RTP packets');
    // GStreamer sends its first sender report a few seconds in.
    await until(() => counts.senderReports > 0 && Date.now() - start >= 2000, 7000, 'an RTCP sender report');
    const seconds = (Date.now() - start) / 1000;
    const reads = scheduler.reads - readsAtPlay;
    const packets = counts.rtp - rtpAtPlay + counts.rtcp;
    assert.equal(counts.badRtp, 0, 'every RTP packet is version 2 with the SDP payload type');
    assert.ok(reads / seconds < 35, `about one read per 40 ms tick, got ${(reads / seconds).toFixed(1)}/s`);
    assert.ok(reads * 2 < packets, `reads (${reads}) far below packets (${packets})`);
    assert.ok(scheduler.resumes > 0 && scheduler.pauses > 0);

    // A receiver report goes out as a '$' frame on the odd channel.
    const rr = Buffer.from([0x80, 201, 0, 1, 0, 0, 0, 1]);
    assert.equal(session.sendRtcp(0, rr), true);
    await until(() => proxy.frames.some((f) => f.channel === 1 && f.payload.equals(rr)), 2000, 'the receiver report at the camera');
  } finally {
    await session.close();
    await proxy.close();
  }
  assert.deepEqual(counts.closes, [undefined], 'onClose once, without an error, after close()');
  const teardown = proxy.requests.find((r) => r.method === 'TEARDOWN');
  assert.ok(teardown !== undefined, 'TEARDOWN sent');
  assert.ok((teardown.headers.get('session') ?? '') !== '', 'with the session id');
  assert.deepEqual(proxy.requests.map((r) => r.method), ['OPTIONS', 'DESCRIBE', 'SETUP', 'PLAY', 'TEARDOWN']);
  assert.equal(session.closed, true);
});

test('UDP transport: an even client port pair, RTP datagrams arrive', { timeout: 20_000 }, async () => {
  const scheduler = new ReadScheduler();
  let pt: number | undefined;
  const { counts, handlers } = counting(() => pt);
  const session = await RtspSession.open({ url: camera.url, transport: 'udp', readScheduler: scheduler, ...handlers });
  try {
    pt = session.sdp.media[0]?.payloadTypes[0];
    const [track] = await session.setup([0]);
    assert.equal((track?.clientPort ?? 1) % 2, 0);
    assert.equal(track?.rtpChannel, undefined);
    await session.play();
    await until(() => counts.rtp > 20, 5000, 'RTP datagrams');
    assert.equal(counts.badRtp, 0);
    assert.equal(session.sendRtcp(0, Buffer.from([0x80, 201, 0, 1, 0, 0, 0, 1])), true);
  } finally {
    await session.close();
  }
  assert.deepEqual(counts.closes, [undefined]);
});

test('tickMs 0 never pauses: about one read per packet', { timeout: 20_000 }, async () => {
  const scheduler = new ReadScheduler({ tickMs: 0 });
  const { counts, handlers } = counting(() => undefined);
  const session = await RtspSession.open({ url: camera.url, readScheduler: scheduler, ...handlers });
  try {
    await session.setup([0]);
    await session.play();
    await until(() => counts.rtp > 50, 5000, 'RTP packets');
    assert.equal(scheduler.pauses, 0);
    assert.equal(scheduler.resumes, 0);
    // Without coalescing nearly every packet costs a read (loose bound: a loaded machine batches some anyway).
    assert.ok(scheduler.reads * 4 > counts.rtp, `reads ${scheduler.reads}, packets ${counts.rtp}`);
  } finally {
    await session.close();
  }
});

test('a stream nobody watches live is read on the idle tick; once watched, on the short tick', { timeout: 30_000 }, async () => {
  const scheduler = new ReadScheduler({ tickMs: 20, idleTickMs: 250 });
  let watched = false;
  const { counts, handlers } = counting(() => undefined);
  const session = await RtspSession.open({ url: camera.url, readScheduler: scheduler, idle: () => !watched, ...handlers });
  const readsPerSecond = async (ms: number): Promise<{ reads: number; packets: number }> => {
    const [reads, packets] = [scheduler.reads, counts.rtp];
    await new Promise((resolve) => setTimeout(resolve, ms));
    return { reads: ((scheduler.reads - reads) * 1000) / ms, packets: counts.rtp - packets };
  };
  try {
    await session.setup([0]);
    await session.play();
    await until(() => counts.rtp > 20, 5000, 'RTP packets');
    const idle = await readsPerSecond(2000);
    watched = true;
    await new Promise((resolve) => setTimeout(resolve, 300)); // the reader moves lanes at its next read
    const live = await readsPerSecond(2000);
    assert.ok(idle.packets > 100 && live.packets > 100, `the camera sent (${idle.packets}, ${live.packets} packets)`);
    // 25 pictures a second: idle, about 4 reads a second (one per 250 ms tick); watched, about one read per picture.
    assert.ok(idle.reads <= 8, `idle: ${idle.reads.toFixed(1)} reads/s`);
    assert.ok(live.reads >= 15, `watched: ${live.reads.toFixed(1)} reads/s`);
  } finally {
    await session.close();
  }
});


test('the camera going away ends the session: onClose once, with an RtspClosedError', { timeout: 20_000 }, async () => {
  const { counts, handlers } = counting(() => undefined);
  const session = await RtspSession.open({ url: camera.url, readScheduler: new ReadScheduler(), ...handlers });
  await session.setup([0]);
  await session.play();
  await until(() => counts.rtp > 5, 5000, 'RTP packets');
  const stoppedAt = Date.now();
  await camera.stop();
  await until(() => counts.closes.length > 0, 5000, 'onClose');
  assert.ok(Date.now() - stoppedAt < 5000);
  assert.equal(counts.closes.length, 1);
  assert.ok(counts.closes[0] instanceof RtspClosedError, String(counts.closes[0]));
  assert.equal(session.closed, true);
  await session.close(); // a no-op now
  assert.equal(counts.closes.length, 1);
});
