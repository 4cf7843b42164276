// Digest answers against RFC 7616's worked examples; challenge parsing and choice; image sniffing.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { DigestSession, digestResponse } from '../../src/snapshot/digest-auth.js';
import { isImageContentType, sniffImage } from '../../src/snapshot/image-check.js';
import { parseChallenges, strongestChallenge } from '../../src/snapshot/www-authenticate.js';

// RFC 7616 §3.9.1.
const RFC = {
  username: 'Mufasa',
  password: 'Circle of Life',
  realm: 'http-auth@example.org',
  nonce: '7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v',
  cnonce: 'f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ',
  nc: '00000001',
  qop: 'auth' as const,
  method: 'GET',
  uri: '/dir/index.html',
};

test('digest responses match the RFC 7616 examples for MD5 and SHA-256', () => {
  assert.equal(digestResponse({ ...RFC, algorithm: 'MD5' }), '8ca523f5e9506fed4657c9700eebdbec');
  assert.equal(digestResponse({ ...RFC, algorithm: 'SHA-256' }), '753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1');
});

test('MD5-sess hashes the session key with nonce and cnonce (RFC 7616 §3.4.2)', () => {
  const md5 = (s: string): string => createHash('md5').update(s).digest('hex');
  const ha1 = md5(`${md5(`${RFC.username}:${RFC.realm}:${RFC.password}`)}:${RFC.nonce}:${RFC.cnonce}`);
  const expected = md5(`${ha1}:${RFC.nonce}:${RFC.nc}:${RFC.cnonce}:auth:${md5(`${RFC.method}:${RFC.uri}`)}`);
  assert.equal(digestResponse({ ...RFC, algorithm: 'MD5-SESS' }), expected);
});

test('a digest session counts nonces, echoes opaque and algorithm, and keeps one cnonce for -sess', () => {
  const [challenge] = parseChallenges([
    `Digest realm="${RFC.realm}", qop="auth, auth-int", algorithm=SHA-256, nonce="${RFC.nonce}", opaque="FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS"`,
  ]);
  assert.ok(challenge);
  const session = new DigestSession(challenge, { username: RFC.username, password: RFC.password }, () => RFC.cnonce);
  const first = session.authorization('GET', RFC.uri);
  assert.match(first, /^Digest username="Mufasa", realm="http-auth@example.org", nonce="7ypf/);
  assert.match(first, /algorithm=SHA-256, qop=auth, nc=00000001, cnonce="f2\/wE4q74E6zIJEtWaHKaf5wv\/H5QzzpXusqGemxURZJ"/);
  assert.match(first, /response="753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1"/);
  assert.match(first, /opaque="FQhe\/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS"/);
  assert.match(session.authorization('GET', RFC.uri), /nc=00000002/);

  const [sess] = parseChallenges([`Digest realm="r", nonce="n", algorithm=MD5-sess, qop=auth`]);
  assert.ok(sess);
  let n = 0;
  const s2 = new DigestSession(sess, { username: 'u', password: 'p' }, () => `c${(n += 1)}`);
  const cnonces = [s2.authorization('GET', '/a'), s2.authorization('GET', '/a')].map((h) => /cnonce="([^"]*)"/.exec(h)?.[1]);
  assert.equal(cnonces[0], cnonces[1]);
});

test('challenges: several per header, quoted commas, stale, and the strongest one wins', () => {
  const parsed = parseChallenges([
    'Basic realm="cam, front", Digest realm="cam", nonce="abc", algorithm=MD5, qop="auth", stale=TRUE',
    'Digest realm="cam", nonce="def", algorithm=SHA-256, qop="auth"',
    'Negotiate a87421000492aa874209af8bc028==',
  ]);
  assert.deepEqual(
    parsed.map((c) => c.scheme),
    ['basic', 'digest', 'digest', 'negotiate'],
  );
  assert.equal(parsed[0]?.params['realm'], 'cam, front');
  assert.equal(parsed[1]?.params['stale'], 'TRUE');
  assert.equal(strongestChallenge(parsed)?.params['nonce'], 'def');
  assert.equal(strongestChallenge(parseChallenges(['Basic realm="x"']))?.scheme, 'basic');
  assert.equal(strongestChallenge(parseChallenges(['Digest realm="x", nonce="n", algorithm=SHA-512-256'])), undefined);
  assert.equal(strongestChallenge(parseChallenges(['Bearer realm="x"'])), undefined);
});

test('images are recognised by magic bytes and content type', () => {
  const riff = Buffer.concat([Buffer.from('RIFF'), Buffer.alloc(4), Buffer.from('WEBPVP8 ')]);
  const bmp = Buffer.concat([Buffer.from('BM'), Buffer.from([0x46, 0, 0, 0, 0, 0, 0, 0, 0x36, 0, 0, 0])]);
  assert.equal(sniffImage(Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10])), 'jpeg');
  assert.equal(sniffImage(Buffer.from('89504e470d0a1a0a0000000d', 'hex')), 'png');
  assert.equal(sniffImage(Buffer.from('GIF89a....')), 'gif');
  assert.equal(sniffImage(riff), 'webp');
  assert.equal(sniffImage(bmp), 'bmp');
  assert.equal(sniffImage(Buffer.from('<!doctype html>')), undefined);
  assert.equal(sniffImage(Buffer.from('BM but only text here')), undefined);
  assert.equal(sniffImage(Buffer.alloc(0)), undefined);
  assert.equal(isImageContentType('image/jpeg'), true);
  assert.equal(isImageContentType('Image/PNG; charset=binary'), true);
  assert.equal(isImageContentType('text/html; charset=utf-8'), false);
  assert.equal(isImageContentType(undefined), false);
});
