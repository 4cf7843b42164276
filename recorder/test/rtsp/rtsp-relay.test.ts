// The credential relay with a real ffmpeg client: Digest login, rtsps:// to the camera, redirects, what the run is told, unknown tokens.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { startRtspCamera, type RtspCamera } from '@vigil/testing/rtsp-camera';
import { RtspTestClient } from '@vigil/testing/rtsp-test-client';
import { tempDir } from '@vigil/testing/temp-dir';
import { RtspRelay } from '../../src/rtsp/rtsp-relay.js';
import { selfSignedCert, startFakeServer, startProxy, type FakeReply } from './helpers.js';

const run = promisify(execFile);
const USER = 'admin';
const PASSWORD = 'relay-Secret-31';

let camera: RtspCamera;

before(async () => {
  camera = await startRtspCamera({ auth: 'digest', user: USER, password: PASSWORD, bitrateKbps: 300, width: 320, height: 180 });
});
after(() => camera.stop());

async function probeCodec(url: string, transport: 'tcp' | 'udp' = 'tcp'): Promise<string> {
  const { stdout } = await run('ffprobe', ['-v', 'error', '-rtsp_transport', transport, '-select_streams', 'v:0', '-show_entries', 'stream=codec_name', '-of', 'csv=p=0', url], { timeout: 20_000 });
  return stdout.trim();
}

test('ffmpeg reads a Digest camera through the relay over TCP and UDP; the run hears SETUP and PLAY; a released token is refused', { timeout: 60_000 }, async () => {
  const relay = new RtspRelay();
  try {
    const seen: string[] = [];
    const lease = await relay.lease(camera.urlWithCredentials(), {
      setupAnswered: (transport, status) => seen.push(`SETUP ${transport} ${status}`),
      playAnswered: (status) => seen.push(`PLAY ${status}`),
    });
    assert.match(lease.url, /^rtsp:\/\/127\.0\.0\.1:\d+\/[0-9a-f]{32}$/);
    assert.equal(await probeCodec(lease.url), 'h264');
    assert.equal(await probeCodec(lease.url, 'udp'), 'h264');
    assert.ok(seen.includes('SETUP tcp 200') && seen.includes('SETUP udp 200') && seen.includes('PLAY 200'), seen.join(', '));
    lease.release();
    const client = await RtspTestClient.connect(Number(new URL(lease.url).port));
    try {
      assert.equal((await client.request('OPTIONS', lease.url)).status, 404, 'a released token names nothing');
    } finally {
      client.close();
    }
  } finally {
    await relay.close();
  }
});

test('rtsps:// to the camera (TLS from the relay) and a redirect, followed through the relay', { timeout: 60_000 }, async (t) => {
  const cert = await selfSignedCert(await tempDir(t));
  const tls = await startProxy(camera.port, cert);
  t.after(() => tls.close());
  const moved = await startFakeServer((): FakeReply => ({ status: 302, headers: { Location: `rtsp://127.0.0.1:${camera.port}/cam` } }));
  t.after(() => moved.close());
  const relay = new RtspRelay({ tlsRejectUnauthorized: false });
  try {
    const secure = await relay.lease(`rtsps://${USER}:${PASSWORD}@127.0.0.1:${tls.port}/cam`);
    assert.equal(await probeCodec(secure.url), 'h264');
    const redirected = await relay.lease(`rtsp://${USER}:${PASSWORD}@127.0.0.1:${moved.port}/old`);
    assert.equal(await probeCodec(redirected.url), 'h264', 'the redirect leads to the camera, credentials kept on the same host');
  } finally {
    await relay.close();
  }
});
