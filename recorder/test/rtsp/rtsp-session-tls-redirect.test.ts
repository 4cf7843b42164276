// rtsps:// through a TLS-terminating proxy in front of the real camera, and 3xx redirects (credentials, limit).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startRtspCamera, type RtspCamera } from '@vigil/testing/rtsp-camera';
import { tempDir } from '@vigil/testing/temp-dir';
import { ReadScheduler } from '../../src/rtsp/read-scheduler.js';
import { RtspAuthError } from '../../src/rtsp/rtsp-auth.js';
import { RtspError } from '../../src/rtsp/rtsp-errors.js';
import { RtspSession } from '../../src/rtsp/rtsp-session.js';
import { selfSignedCert, startFakeServer, startProxy, until, type FakeReply } from './helpers.js';

const USER = 'admin';
const PASSWORD = 'tls-Secret-77';

let camera: RtspCamera;

before(async () => {
  camera = await startRtspCamera({ auth: 'digest', user: USER, password: PASSWORD, bitrateKbps: 500 });
});
after(() => camera.stop());

test('rtsps:// over TLS (self-signed, tlsRejectUnauthorized false) plays; with verification on it is refused', { timeout: 30_000 }, async (t) => {
  const cert = await selfSignedCert(await tempDir(t));
  const proxy = await startProxy(camera.port, cert);
  t.after(() => proxy.close());
  const url = `rtsps://${USER}:${PASSWORD}@127.0.0.1:${proxy.port}/cam`;
  const scheduler = new ReadScheduler();
  let rtp = 0;
  const session = await RtspSession.open({ url, readScheduler: scheduler, tlsRejectUnauthorized: false, onRtp: () => rtp++ });
  try {
    await session.setup([0]);
    await session.play();
    await until(() => rtp > 10, 5000, 'RTP over TLS');
    assert.ok(scheduler.reads > 0, 'TLS reads are counted too');
  } finally {
    await session.close();
  }
  assert.ok(proxy.requests.some((r) => r.method === 'TEARDOWN'));
  await assert.rejects(RtspSession.open({ url, readScheduler: scheduler, timeoutMs: 3000 }), (err: Error) => {
    assert.ok(!err.message.includes(PASSWORD));
    return /certificate/i.test(err.message);
  });
});

test('a 302 on OPTIONS, then one on DESCRIBE, lead to the camera; credentials stay on the same host', { timeout: 20_000 }, async (t) => {
  const second = await startFakeServer((req): FakeReply =>
    req.method === 'DESCRIBE' ? { status: 302, headers: { Location: `rtsp://127.0.0.1:${camera.port}/cam` } } : { status: 200, headers: { Public: 'OPTIONS, DESCRIBE' } },
  );
  t.after(() => second.close());
  const first = await startFakeServer(() => ({ status: 301, headers: { Location: `rtsp://127.0.0.1:${second.port}/moved` } }));
  t.after(() => first.close());
  let rtp = 0;
  const session = await RtspSession.open({ url: `rtsp://${USER}:${PASSWORD}@127.0.0.1:${first.port}/cam`, readScheduler: new ReadScheduler(), onRtp: () => rtp++ });
  try {
    assert.equal(session.redactedUrl, `rtsp://127.0.0.1:${camera.port}/cam`);
    await session.setup([0]);
    await session.play();
    await until(() => rtp > 5, 5000, 'RTP after redirects');
  } finally {
    await session.close();
  }
  assert.deepEqual(first.requests.map((r) => r.method), ['OPTIONS']);
  assert.deepEqual(second.requests.map((r) => `${r.method} ${r.uri}`), [`OPTIONS rtsp://127.0.0.1:${second.port}/moved`, `DESCRIBE rtsp://127.0.0.1:${second.port}/moved`]);
});

test('a redirect to another host drops the credentials', { timeout: 20_000 }, async (t) => {
  const redirector = await startFakeServer(() => ({ status: 302, headers: { Location: `rtsp://localhost:${camera.port}/cam` } }));
  t.after(() => redirector.close());
  await assert.rejects(
    RtspSession.open({ url: `rtsp://${USER}:${PASSWORD}@127.0.0.1:${redirector.port}/cam`, readScheduler: new ReadScheduler() }),
    (err: Error) => err instanceof RtspAuthError && /requires credentials/.test(err.message),
  );
});

test('more than 5 redirects are refused', { timeout: 20_000 }, async (t) => {
  const loop = await startFakeServer((req) => ({ status: 302, headers: { Location: `${req.uri}x` } }));
  t.after(() => loop.close());
  await assert.rejects(
    RtspSession.open({ url: `rtsp://${USER}:${PASSWORD}@127.0.0.1:${loop.port}/cam`, readScheduler: new ReadScheduler() }),
    (err: Error) => err instanceof RtspError && /more than 5 redirects/.test(err.message) && !err.message.includes(PASSWORD),
  );
  assert.equal(loop.requests.length, 6);
});
