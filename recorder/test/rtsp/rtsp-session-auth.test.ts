// The RTSP client's authentication against a real camera (GStreamer): Digest, Basic, wrong and missing credentials.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startRtspCamera, type RtspCamera } from '@vigil/testing/rtsp-camera';
import { ReadScheduler } from '../../src/rtsp/read-scheduler.js';
import { RtspAuthError } from '../../src/rtsp/rtsp-auth.js';
import { RtspSession } from '../../src/rtsp/rtsp-session.js';
import { startProxy, until, type Proxy } from './helpers.js';

const USER = 'admin';
const PASSWORD = 'Pw9:s@cr%t';
const WRONG = 'Wr0ng-Pa55word';

let digestCamera: RtspCamera;
let basicCamera: RtspCamera;

before(async () => {
  [digestCamera, basicCamera] = await Promise.all([
    startRtspCamera({ auth: 'digest', user: USER, password: PASSWORD, bitrateKbps: 500 }),
    startRtspCamera({ auth: 'basic', user: USER, password: PASSWORD, bitrateKbps: 500 }),
  ]);
});
after(() => Promise.all([digestCamera.stop(), basicCamera.stop()]));

function proxiedUrl(proxy: Proxy, user: string, password: string): string {
  return `rtsp://${encodeURIComponent(user)}:${encodeURIComponent(password)}@127.0.0.1:${proxy.port}/cam`;
}

async function playBriefly(url: string): Promise<number> {
  let rtp = 0;
  const session = await RtspSession.open({ url, readScheduler: new ReadScheduler(), onRtp: () => rtp++ });
  try {
    await session.setup([0]);
    await session.play();
    await until(() => rtp > 10, 5000, 'RTP packets');
  } finally {
    await session.close();
  }
  return rtp;
}

for (const scheme of ['digest', 'basic'] as const) {
  test(`${scheme}: the right credentials play; every request after the challenge carries a fresh Authorization`, { timeout: 20_000 }, async () => {
    const camera = scheme === 'digest' ? digestCamera : basicCamera;
    const proxy = await startProxy(camera.port);
    try {
      assert.ok((await playBriefly(proxiedUrl(proxy, USER, PASSWORD))) > 10);
    } finally {
      await proxy.close();
    }
    const challenged = proxy.requests.findIndex((r) => r.headers.has('authorization'));
    assert.ok(challenged > 0, 'the first request goes without credentials');
    const authorized = proxy.requests.slice(challenged);
    assert.deepEqual(authorized.map((r) => r.method), ['DESCRIBE', 'SETUP', 'PLAY', 'TEARDOWN']);
    for (const r of authorized) {
      const header = r.headers.get('authorization') ?? '';
      assert.match(header, scheme === 'digest' ? /^Digest username="admin", realm="vigil-test-camera"/ : /^Basic /);
      if (scheme === 'digest') assert.ok(header.includes(`uri="${r.uri}"`), 'bound to the request URI');
      assert.ok(!header.includes(PASSWORD) && !r.uri.includes(PASSWORD));
    }
  });

  test(`${scheme}: a wrong password is an RtspAuthError after exactly one authenticated attempt, without the password`, { timeout: 20_000 }, async () => {
    const camera = scheme === 'digest' ? digestCamera : basicCamera;
    const proxy = await startProxy(camera.port);
    const started = Date.now();
    let closes = 0;
    try {
      await assert.rejects(
        RtspSession.open({ url: proxiedUrl(proxy, USER, WRONG), readScheduler: new ReadScheduler(), onClose: () => closes++ }),
        (err: Error) => {
          assert.ok(err instanceof RtspAuthError, String(err));
          assert.equal(err.message, 'the camera refused the credentials (401)');
          const text = `${err.message}\n${err.stack ?? ''}\n${JSON.stringify(err)}`;
          for (const secret of [WRONG, encodeURIComponent(WRONG)]) assert.ok(!text.includes(secret), 'no password in the error');
          return true;
        },
      );
      assert.ok(Date.now() - started < 3000, 'fails fast');
      // Give a retry storm the chance to show up.
      await new Promise((resolve) => setTimeout(resolve, 300));
    } finally {
      await proxy.close();
    }
    assert.equal(proxy.requests.filter((r) => r.headers.has('authorization')).length, 1, 'one authenticated attempt');
    assert.equal(proxy.requests.filter((r) => r.method === 'DESCRIBE').length, 2, 'one retry of DESCRIBE');
    assert.equal(closes, 0, 'open() rejected: no onClose');
  });
}

test('no credentials for a camera that wants them: an RtspAuthError saying so', { timeout: 10_000 }, async () => {
  await assert.rejects(
    RtspSession.open({ url: digestCamera.url, readScheduler: new ReadScheduler() }),
    (err: Error) => err instanceof RtspAuthError && /requires credentials/.test(err.message),
  );
});

test('credentials in the URL (percent-encoded) work directly against the camera', { timeout: 20_000 }, async () => {
  assert.ok((await playBriefly(digestCamera.urlWithCredentials(USER, PASSWORD))) > 10);
});
