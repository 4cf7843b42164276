// Digest and Basic authentication: RFC 2617/7616 example vectors, challenge parsing, and the per-request header.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RtspAuthError, RtspAuthenticator, digestResponse, parseAuthenticate } from '../../src/rtsp/rtsp-auth.js';

test('RFC 2617 §3.5: MD5 with qop=auth', () => {
  assert.equal(
    digestResponse({
      algorithm: 'MD5', user: 'Mufasa', password: 'Circle Of Life', realm: 'testrealm@host.com',
      nonce: 'dcd98b7102dd2f0e8b11d0f600bfb0c093', method: 'GET', uri: '/dir/index.html',
      qop: 'auth', nc: '00000001', cnonce: '0a4f113b',
    }),
    '6629fae49393a05397450978507c4ef1',
  );
});

const RFC7616 = {
  user: 'Mufasa', password: 'Circle of Life', realm: 'http-auth@example.org',
  nonce: '7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v', method: 'GET', uri: '/dir/index.html',
  qop: 'auth', nc: '00000001', cnonce: 'f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ',
};

test('RFC 7616 §3.9.1: MD5 and SHA-256 with qop=auth', () => {
  assert.equal(digestResponse({ ...RFC7616, algorithm: 'MD5' }), '8ca523f5e9506fed4657c9700eebdbec');
  assert.equal(digestResponse({ ...RFC7616, algorithm: 'SHA-256' }), '753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1');
});

test('RFC 2069 (no qop): H(HA1:nonce:HA2)', () => {
  // RFC 2069 §2.4's example; its printed response (1949323746fe...) is a known erratum, this is the computed value.
  assert.equal(
    digestResponse({
      algorithm: 'MD5', user: 'Mufasa', password: 'Circle Of Life', realm: 'testrealm@host.com',
      nonce: 'dcd98b7102dd2f0e8b11d0f600bfb0c093', method: 'GET', uri: '/dir/index.html',
    }),
    '670fd8c2df070c60b045671b8b24ff02',
  );
});

test('WWW-Authenticate: several headers, several challenges in one header, quoted commas', () => {
  const challenges = parseAuthenticate([
    'Digest realm="cam, main", nonce="abc", algorithm=MD5, qop="auth,auth-int", Basic realm="cam"',
    'Digest realm="cam", nonce="def", algorithm=SHA-256, qop="auth"',
  ]);
  assert.deepEqual(challenges.map((c) => c.scheme), ['digest', 'basic', 'digest']);
  assert.equal(challenges[0]?.params.get('realm'), 'cam, main');
  assert.equal(challenges[0]?.params.get('qop'), 'auth,auth-int');
  assert.equal(challenges[1]?.params.get('realm'), 'cam');
  assert.equal(challenges[2]?.params.get('algorithm'), 'SHA-256');
});

test('the authenticator prefers Digest SHA-256 over MD5 over Basic, and recomputes per request', () => {
  const auth = new RtspAuthenticator({ user: 'Mufasa', password: 'Circle of Life' }, () => RFC7616.cnonce);
  assert.equal(auth.authorization('DESCRIBE', 'rtsp://h/cam'), undefined, 'nothing before a challenge');
  const outcome = auth.accept([
    'Basic realm="x"',
    `Digest realm="${RFC7616.realm}", qop="auth", algorithm=MD5, nonce="${RFC7616.nonce}", opaque="FQhe"`,
    `Digest realm="${RFC7616.realm}", qop="auth", algorithm=SHA-256, nonce="${RFC7616.nonce}", opaque="FQhe"`,
  ]);
  assert.deepEqual(outcome, { scheme: 'digest', stale: false, nonceChanged: false });
  const first = auth.authorization('GET', '/dir/index.html') ?? '';
  assert.match(first, /^Digest username="Mufasa", realm="http-auth@example.org", nonce="7ypf/);
  assert.match(first, /response="753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1"/);
  assert.match(first, /qop=auth, nc=00000001, cnonce="f2\/wE4/);
  assert.match(first, /algorithm=SHA-256, opaque="FQhe"$/);
  const second = auth.authorization('SETUP', 'rtsp://h/cam/track1') ?? '';
  assert.match(second, /uri="rtsp:\/\/h\/cam\/track1"/);
  assert.match(second, /nc=00000002/);
  assert.doesNotMatch(first + second, /Circle of Life/);
});

test('Basic when that is all the camera offers; RtspAuthError without credentials or for unknown schemes', () => {
  const basic = new RtspAuthenticator({ user: 'admin', password: 'pä:ss' });
  basic.accept(['Basic realm="cam"']);
  assert.equal(basic.authorization('OPTIONS', '*'), `Basic ${Buffer.from('admin:pä:ss').toString('base64')}`);
  assert.throws(() => new RtspAuthenticator(undefined).accept(['Basic realm="cam"']), RtspAuthError);
  assert.throws(() => new RtspAuthenticator({ user: 'a', password: 'b' }).accept(['Negotiate abc']), RtspAuthError);
});

test('a changed or stale nonce is reported so the session may retry once', () => {
  const auth = new RtspAuthenticator({ user: 'a', password: 'b' });
  auth.accept(['Digest realm="r", nonce="n1"']);
  assert.match(auth.authorization('DESCRIBE', 'rtsp://h/') ?? '', /response="[0-9a-f]{32}"$/);
  assert.deepEqual(auth.accept(['Digest realm="r", nonce="n2", stale=TRUE']), { scheme: 'digest', stale: true, nonceChanged: true });
});
