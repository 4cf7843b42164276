// The API port with a certificate: HTTPS and wss only, plain HTTP answered 400, TLS 1.1 and weak suites refused, a renewed pair for new connections while an open viewer streams on.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { copyFile, rename } from 'node:fs/promises';
import { request as plainRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { connect as netConnect } from 'node:net';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { connect as tlsConnect, type ConnectionOptions } from 'node:tls';
import { createTestCa, type IssuedCertificate } from '@vigil/testing/test-ca';
import { tempDir } from '@vigil/testing/temp-dir';
import { WebSocket } from 'ws';
import { listen, type RunningServer } from '../../src/http/server.js';
import { StreamHub } from '../../src/stream/stream-hub.js';
import { ServingCertificate } from '../../src/tls/serving-certificate.js';
import { systemClock } from '../../src/util/clock.js';
import { hubCameras, mapLocator } from '../support/fakes.js';
import { buildTestApp, TOKENS } from '../support/test-app.js';
import { fakeInit, fragmentNumber, numberedFragment } from './live-fixtures.js';

interface TlsApp {
  server: RunningServer;
  port: number;
  ca: Awaited<ReturnType<typeof createTestCa>>;
  first: IssuedCertificate;
  certFile: string;
  keyFile: string;
  hub: StreamHub;
  logs(): string;
}

/** The real app with one streaming camera, served over TLS from files the test can replace; looked at every 200 ms. */
async function startTlsApp(t: TestContext): Promise<TlsApp> {
  const dir = await tempDir(t);
  const ca = await createTestCa(join(dir, 'ca'), { intermediate: true });
  const first = await ca.issue('first');
  const certFile = join(dir, 'tls.crt');
  const keyFile = join(dir, 'tls.key');
  await copyFile(first.certFile, certFile);
  await copyFile(first.keyFile, keyFile);
  const hub = new StreamHub('door');
  const hubs = new Map([['door', hub as StreamHub | undefined]]);
  const built = await buildTestApp({ cameras: hubCameras(hubs), locator: mapLocator((id) => hubs.has(id)) });
  const certificate = await ServingCertificate.load({ certFile, keyFile, log: built.log, clock: systemClock, checkIntervalMs: 200 });
  certificate.start();
  const server = await listen(built.app, { host: '127.0.0.1', port: 0 }, { certificate, log: built.log });
  t.after(async () => {
    certificate.stop();
    await server.close();
  });
  return { server, port: Number(new URL(server.url).port), ca, first, certFile, keyFile, hub, logs: built.logText };
}

/** A TLS handshake with the port; resolves with the served certificate's serial and the protocol, or rejects with the alert. */
function handshake(port: number, opts: ConnectionOptions): Promise<{ serial: string; protocol: string | null; cipher: string }> {
  return new Promise((resolve, reject) => {
    const socket = tlsConnect({ host: '127.0.0.1', port, servername: 'localhost', ...opts }, () => {
      const result = { serial: socket.getPeerCertificate().serialNumber, protocol: socket.getProtocol(), cipher: socket.getCipher().name };
      socket.end();
      resolve(result);
    });
    socket.on('error', reject);
  });
}

function getJson(url: string, ca: string): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(url, { ca, servername: 'localhost', headers: { authorization: `Bearer ${TOKENS.viewer}` } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as unknown }));
    });
    req.on('error', reject);
    req.end();
  });
}

async function until(cond: () => boolean | Promise<boolean>, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

test('the API answers over TLS with the full chain; plain HTTP and ws:// get 400 https_required; the URL says https', async (t) => {
  const app = await startTlsApp(t);
  assert.equal(app.server.url, `https://127.0.0.1:${app.port}`);
  // Only the root is trusted: the intermediate must come from the server.
  const cameras = await getJson(`${app.server.url}/api/cameras`, app.ca.caPem);
  assert.equal(cameras.status, 200);
  assert.deepEqual((cameras.body as Array<{ id: string }>).map((c) => c.id), ['door']);

  const plain = await new Promise<{ status: number; body: string; connection: string | undefined }>((resolve, reject) => {
    const req = plainRequest({ host: '127.0.0.1', port: app.port, path: '/api/cameras?access_token=leaky', headers: { authorization: `Bearer ${TOKENS.viewer}` } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, connection: res.headers.connection }));
    });
    req.on('error', reject);
    req.end();
  });
  assert.equal(plain.status, 400);
  assert.equal(plain.connection, 'close');
  const error = (JSON.parse(plain.body) as { error: { code: string; message: string; details: { url: string } } }).error;
  assert.equal(error.code, 'https_required');
  assert.equal(error.details.url, `https://127.0.0.1:${app.port}/`);
  assert.doesNotMatch(plain.body, /leaky/, 'the query (a token may be in it) is never echoed');

  const ws = new WebSocket(`ws://127.0.0.1:${app.port}/websocket/door?access_token=${TOKENS.viewer}`);
  const refused = await new Promise<number>((resolve) => ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0)));
  assert.equal(refused, 400);
});

test('TLS 1.2 and 1.3 with forward-secret AEAD suites only: TLS 1.1 and CBC/RSA-key-exchange suites are refused by the server', async (t) => {
  const app = await startTlsApp(t);
  const trusted = { ca: app.ca.caPem };
  assert.equal((await handshake(app.port, { ...trusted, maxVersion: 'TLSv1.3' })).protocol, 'TLSv1.3');
  const tls12 = await handshake(app.port, { ...trusted, maxVersion: 'TLSv1.2' });
  assert.equal(tls12.protocol, 'TLSv1.2');
  assert.match(tls12.cipher, /^ECDHE-ECDSA-(AES(128|256)-GCM-SHA(256|384)|CHACHA20-POLY1305)$/);

  // The client offers TLS 1.1 (security level 0 lets it): the server answers with a protocol_version alert.
  await assert.rejects(handshake(app.port, { ...trusted, minVersion: 'TLSv1', maxVersion: 'TLSv1.1', ciphers: 'DEFAULT:@SECLEVEL=0' }), /alert protocol version/i);
  // TLS 1.2 with a CBC suite and no forward secrecy: no suite in common, handshake_failure from the server.
  await assert.rejects(handshake(app.port, { ...trusted, maxVersion: 'TLSv1.2', ciphers: 'AES128-SHA:AES256-SHA256:ECDHE-ECDSA-AES128-SHA' }), /alert handshake failure/i);
  // A client that does not trust the test CA refuses the server (and the server lives on).
  await assert.rejects(handshake(app.port, {}), /self-signed certificate in certificate chain|unable to get local issuer/);
  assert.equal((await getJson(`${app.server.url}/api/health/live`, app.ca.caPem)).status, 200);
});

test('renewal: replaced files reach new connections within the check interval while an open wss viewer keeps streaming; a broken pair is logged and not served', async (t) => {
  const app = await startTlsApp(t);
  app.hub.publishInit(fakeInit());
  app.hub.publishFragment(numberedFragment(0, true));
  const viewer = new WebSocket(`wss://127.0.0.1:${app.port}/websocket/door`, { ca: app.ca.caPem, headers: { authorization: `Bearer ${TOKENS.viewer}` } });
  const messages: Buffer[] = [];
  viewer.on('message', (data: Buffer) => messages.push(data));
  await once(viewer, 'open');
  await until(() => messages.length === 2, 'the init segment and the first fragment');
  assert.equal((await handshake(app.port, { ca: app.ca.caPem })).serial, app.first.serial);

  const second = await app.ca.issue('second');
  await copyFile(second.certFile, `${app.certFile}.new`);
  await copyFile(second.keyFile, `${app.keyFile}.new`);
  await rename(`${app.keyFile}.new`, app.keyFile);
  await rename(`${app.certFile}.new`, app.certFile);
  await until(async () => (await handshake(app.port, { ca: app.ca.caPem })).serial === second.serial, 'the new serial on a new connection');

  for (let n = 1; n <= 5; n++) app.hub.publishFragment(numberedFragment(n, false));
  await until(() => messages.length === 7, 'fragments after the renewal on the viewer opened before it');
  assert.deepEqual(messages.slice(1).map((m) => fragmentNumber(m).n), [0, 1, 2, 3, 4, 5]);
  assert.equal(viewer.readyState, WebSocket.OPEN);

  // The next renewal half done: a key from another pair. The served certificate stays, the log says why.
  const third = await app.ca.issue('third');
  await copyFile(third.keyFile, app.keyFile);
  await until(() => /is not the key of the certificate/.test(app.logs()), 'the error about the pair');
  assert.equal((await handshake(app.port, { ca: app.ca.caPem })).serial, second.serial);
  app.hub.publishFragment(numberedFragment(6, true));
  await until(() => messages.length === 8, 'the viewer still streams');
  viewer.close();
});

test('close: a viewer gets its close frame, silent and plain connections are cut, nothing holds the close', async (t) => {
  const app = await startTlsApp(t);
  app.hub.publishInit(fakeInit());
  const viewer = new WebSocket(`wss://127.0.0.1:${app.port}/websocket/door`, { ca: app.ca.caPem, headers: { authorization: `Bearer ${TOKENS.viewer}` } });
  const closed = new Promise<number>((resolve) => viewer.on('close', (code) => resolve(code)));
  await once(viewer, 'open');
  const silent = netConnect({ host: '127.0.0.1', port: app.port });
  await once(silent, 'connect');
  const silentClosed = once(silent, 'close');
  const started = Date.now();
  await app.server.close();
  assert.ok(Date.now() - started < 3000, `closed in ${Date.now() - started} ms`);
  assert.equal(await closed, 1001, 'going away');
  await silentClosed;
});
