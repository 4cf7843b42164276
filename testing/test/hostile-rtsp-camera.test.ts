// The hostile test camera does what each mode says, checked with a plain RTSP client.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:net';
import { once } from 'node:events';
import { test } from 'node:test';
import { startHostileRtspCamera } from '../src/hostile-rtsp-camera.js';
import { encodeLoopFile } from '../src/rtsp-camera.js';
import { RtspTestClient } from '../src/rtsp-test-client.js';

test('the hostile camera: a valid session streams H.264 over TCP; each bad mode misbehaves as named', { timeout: 60_000 }, async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'vigil-hostile-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const loop = join(dir, 'loop.h264');
  await encodeLoopFile(loop, { width: 160, height: 90, fps: 25, gop: 25, bitrateKbps: 100, seconds: 1 });

  const valid = await startHostileRtspCamera({ mode: 'valid', file: loop });
  t.after(() => valid.stop());
  const client = await RtspTestClient.connect(valid.port);
  t.after(() => client.close());
  const described = await client.request('DESCRIBE', valid.url);
  assert.match(described.body, /a=rtpmap:96 H264\/90000/);
  assert.equal((await client.request('SETUP', `${valid.url}/track1`, { Transport: 'RTP/AVP;unicast;client_port=5000-5001' })).status, 461, 'UDP refused');
  assert.equal((await client.request('SETUP', `${valid.url}/track1`, { Transport: 'RTP/AVP/TCP;unicast;interleaved=0-1' })).status, 200);
  assert.equal((await client.request('PLAY', valid.url, { Session: '4711' })).status, 200);

  const silent = await startHostileRtspCamera({ mode: 'udp-silent', file: loop });
  t.after(() => silent.stop());
  const udpClient = await RtspTestClient.connect(silent.port);
  t.after(() => udpClient.close());
  const setup = await udpClient.request('SETUP', `${silent.url}/track1`, { Transport: 'RTP/AVP;unicast;client_port=5000-5001' });
  assert.equal(setup.status, 200, 'udp-silent accepts UDP');
  assert.match(setup.headers['transport'] ?? '', /server_port=/);

  for (const mode of ['huge-content-length', 'endless-headers'] as const) {
    const camera = await startHostileRtspCamera({ mode, file: loop });
    t.after(() => camera.stop());
    const socket = connect({ port: camera.port, host: '127.0.0.1' });
    await once(socket, 'connect');
    socket.write(`DESCRIBE ${camera.url} RTSP/1.0\r\nCSeq: 1\r\n\r\n`);
    let received = '';
    for await (const chunk of socket) {
      received += (chunk as Buffer).toString('latin1');
      if (received.length > 100_000) break;
    }
    socket.destroy();
    if (mode === 'huge-content-length') assert.match(received, /Content-Length: 2000000000/);
    else assert.ok(!received.includes('\r\n\r\n'), 'the header block never ends');
  }
});
