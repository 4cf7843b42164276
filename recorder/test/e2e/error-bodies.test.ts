// Every 4xx/5xx carries {"error":{"code","message"}} with a catalogue code and its status: parser, router and route errors.
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { test } from 'node:test';
import { ERROR_CATALOGUE } from '../../src/http/error-catalogue.js';
import { sha256, startRecorderProcess } from '../support/recorder-process.js';
import { tempDir } from '@vigil/testing/temp-dir';

const OPERATOR = 'errors-operator-token';

interface RawAnswer {
  status: number;
  headers: string;
  body: string;
}

/** Sends bytes as they are (no client would send most of them) and reads the answer until the server closes. */
function rawRequest(url: string, bytes: string | Buffer): Promise<RawAnswer> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => socket.destroy(new Error('no answer within 10 s')), 10_000);
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', (err) => {
      // The server may reset after answering (it closes while the client still sends); the answer counts.
      if (chunks.length === 0) reject(err);
    });
    socket.on('close', () => {
      clearTimeout(timer);
      const text = Buffer.concat(chunks).toString('utf8');
      const split = text.indexOf('\r\n\r\n');
      const head = split < 0 ? text : text.slice(0, split);
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? NaN);
      resolve({ status, headers: head, body: split < 0 ? '' : text.slice(split + 4) });
    });
    socket.end(bytes);
  });
}

/** The answer is the API's error body with this code, and the code's catalogue status is the HTTP status. */
function assertErrorBody(what: string, status: number, body: string, code: keyof typeof ERROR_CATALOGUE): void {
  let parsed: { error?: { code?: unknown; message?: unknown } };
  try {
    parsed = JSON.parse(body) as typeof parsed;
  } catch {
    assert.fail(`${what}: the body is not JSON: ${body.slice(0, 200)}`);
  }
  assert.equal(parsed.error?.code, code, `${what}: ${body}`);
  assert.equal(typeof parsed.error?.message, 'string', `${what}: a message`);
  assert.equal(status, ERROR_CATALOGUE[code].status, `${what}: status ${status} is the catalogue's for ${code}`);
}

test('errors raised before any route (HTTP parser, router) answer with the error body and a catalogue code', { timeout: 30_000 }, async (t) => {
  const dir = await tempDir(t);
  const rec = await startRecorderProcess({ dir, config: { auth: { disabled: true }, cameras: [] } });
  t.after(() => rec.stop());

  const cases: Array<[string, string | Buffer, number, keyof typeof ERROR_CATALOGUE]> = [
    ['a Content-Length that is not a number', 'POST /cameras/stop HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ten\r\n\r\n{"id":"*"}', 400, 'bad_request'],
    ['two different Content-Lengths', 'POST /cameras/stop HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}', 400, 'bad_request'],
    ['headers over the limit', `GET /api/health/live HTTP/1.1\r\nHost: x\r\nX-Filler: ${'a'.repeat(20_000)}\r\n\r\n`, 431, 'headers_too_large'],
    ['a request line that is not HTTP', 'HELLO THERE\r\n\r\n', 400, 'bad_request'],
    ['a request line with a bad version', 'GET /api/health/live HTTP/7.3\r\nHost: x\r\n\r\n', 400, 'bad_request'],
    ['a header name with a space', 'GET /api/health/live HTTP/1.1\r\nHost: x\r\nBad Header: 1\r\n\r\n', 400, 'bad_request'],
    ['a path segment over 100 characters', `GET /api/archive/jobs/${'a'.repeat(120)} HTTP/1.1\r\nHost: x\r\n\r\n`, 414, 'uri_too_long'],
    ['a broken percent-escape in the path', 'GET /api/archive/%E0%A4%A/segments HTTP/1.1\r\nHost: x\r\n\r\n', 400, 'bad_request'],
  ];
  for (const [what, bytes, status, code] of cases) {
    const answer = await rawRequest(rec.url, bytes);
    assert.equal(answer.status, status, `${what}: ${answer.headers}\n${answer.body.slice(0, 200)}`);
    assert.match(answer.headers, /content-type: application\/json/i, what);
    assertErrorBody(what, answer.status, answer.body, code);
  }
  // The server is still fine afterwards.
  assert.equal((await fetch(`${rec.url}/api/health/live`)).status, 200);
});

test('export and time-lapse take no body: one is a 400 with the error body, not ignored', { timeout: 30_000 }, async (t) => {
  const dir = await tempDir(t);
  const rec = await startRecorderProcess({ dir, config: { auth: { tokens: [{ name: 'ops', role: 'operator', sha256: sha256(OPERATOR) }] }, cameras: [] } });
  t.after(() => rec.stop());
  const headers = { authorization: `Bearer ${OPERATOR}` };
  const window = 'from=1773136800&to=1773140400';
  for (const [path, init] of [
    [`/api/archive/door/export?${window}`, { body: '{}', headers: { ...headers, 'content-type': 'application/json' } }],
    [`/api/archive/door/export?${window}`, { body: 'from=1&to=2', headers: { ...headers, 'content-type': 'text/plain' } }],
    [`/api/archive/door/timelapse?${window}&speed=60`, { body: JSON.stringify({ from: 1773136800, to: 1773140400, speed: 60 }), headers: { ...headers, 'content-type': 'application/json' } }],
  ] as const) {
    const res = await fetch(`${rec.url}${path}`, { method: 'POST', ...init });
    const body = await res.text();
    assert.equal(res.status, 400, `${path} with a body: ${body}`);
    assertErrorBody(path, res.status, body, 'bad_request');
    assert.match(body, /takes no body/);
  }
  // Without a body (fetch sends Content-Length: 0) the same request is accepted.
  const ok = await fetch(`${rec.url}/api/archive/door/export?${window}`, { method: 'POST', headers });
  assert.equal(ok.status, 202, await ok.text());
  // Auth still comes first: no token is a 401 whatever the body.
  const anonymous = await fetch(`${rec.url}/api/archive/door/export?${window}`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
  assert.equal(anonymous.status, 401);
});
