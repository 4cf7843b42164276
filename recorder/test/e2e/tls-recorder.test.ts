// A real recorder serving HTTPS with a certificate from a test CA: curl, openssl s_client, readiness (expiring, still ready) and the expiry metric, renewal on SIGHUP under an open live viewer, a start refused over a bad pair.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { join } from 'node:path';
import { test } from 'node:test';
import { runCommand } from '@vigil/testing/command';
import { waitUntil } from '@vigil/testing/processes';
import { parsePrometheusText } from '@vigil/testing/prometheus-text';
import { startRtspCamera } from '@vigil/testing/rtsp-camera';
import { createTestCa } from '@vigil/testing/test-ca';
import { tempDir } from '@vigil/testing/temp-dir';
import { WebSocket } from 'ws';
import { sha256, startRecorderProcess } from '../support/recorder-process.js';
import { getJson } from './helpers.js';
import { installPair, servedSerial, trustInThisProcess } from './tls-helpers.js';

const TOKEN = 'tls-operator-token';

test('HTTPS end to end: curl --cacert, plain HTTP 400, TLS 1.1 refused, readiness passes (tls expiring) a week before the end, renewal on SIGHUP while a viewer streams, a broken pair kept out', { timeout: 150_000 }, async (t) => {
  const dir = await tempDir(t);
  const ca = await createTestCa(join(dir, 'ca'), { intermediate: true });
  trustInThisProcess(ca.caPem);
  const soon = await ca.issue('soon', { days: 3 });
  const files = await installPair(soon, join(dir, 'node-tls'));
  const camera = await startRtspCamera({ width: 320, height: 240, fps: 10, gop: 10, bitrateKbps: 200 });
  t.after(() => camera.stop());
  const rec = await startRecorderProcess({
    dir,
    config: { auth: { tokens: [{ name: 'ops', role: 'operator', sha256: sha256(TOKEN) }] }, tls: { cert_file: files.certFile, key_file: files.keyFile }, cameras: [{ id: 'gate', source: camera.url }] },
  });
  t.after(() => rec.stop());
  assert.match(rec.url, /^https:\/\/127\.0\.0\.1:\d+$/, 'the log names an https:// URL');
  const hostPort = new URL(rec.url).host;

  // curl trusting only the root: the server sends its intermediate.
  const curl = await runCommand('curl', ['-sS', '--fail-with-body', '--cacert', ca.caFile, '-H', `Authorization: Bearer ${TOKEN}`, `${rec.url}/api/cameras`]);
  assert.equal(curl.code, 0, curl.stderr);
  assert.equal((JSON.parse(curl.stdout) as Array<{ id: string }>)[0]?.id, 'gate');
  const untrusted = await runCommand('curl', ['-sS', `${rec.url}/api/health/live`]);
  assert.notEqual(untrusted.code, 0, 'a client without the CA refuses the certificate');
  const plain = await runCommand('curl', ['-sS', '-w', '\n%{http_code}', `http://${hostPort}/api/cameras`]);
  const [plainBody = '', plainStatus] = plain.stdout.split('\n');
  assert.equal(plainStatus, '400');
  assert.equal((JSON.parse(plainBody) as { error: { code: string } }).error.code, 'https_required');

  // OpenSSL's own client: TLS 1.1 is refused by the server (alert), TLS 1.2 verifies against the root and uses an ECDHE AEAD suite.
  const tls11 = await runCommand('openssl', ['s_client', '-connect', hostPort, '-tls1_1', '-cipher', 'DEFAULT:@SECLEVEL=0'], { input: '', timeoutMs: 15_000 });
  assert.match(tls11.stdout + tls11.stderr, /alert protocol version/);
  const tls12 = await runCommand('openssl', ['s_client', '-connect', hostPort, '-tls1_2', '-CAfile', ca.caFile, '-verify_return_error'], { input: '', timeoutMs: 15_000 });
  assert.equal(tls12.code, 0, tls12.stderr);
  assert.match(tls12.stdout, /Verify return code: 0 \(ok\)/);
  assert.match(tls12.stdout, /Cipher is ECDHE-ECDSA-(AES128-GCM-SHA256|AES256-GCM-SHA384|CHACHA20-POLY1305)/);

  // Three days left: the certificate still serves, so readiness passes and says it is expiring; the log warns once.
  const ready = await getJson(`${rec.url}/api/health/ready`, TOKEN);
  assert.equal(ready.status, 200);
  const body = ready.body as { failed: string[]; checks: { tls: { configured: boolean; not_after: string; expiring: boolean; expired: boolean } } };
  assert.deepEqual(body.failed, []);
  assert.deepEqual(body.checks.tls, { configured: true, not_after: soon.notAfter.toISOString(), expiring: true, expired: false });
  await rec.waitForLog((l) => l.level === 40 && l['not_after'] === soon.notAfter.toISOString() && /has not been renewed; it is served until then \(readiness passes\)/.test(l.msg));
  const metricsUrl = String((await rec.waitForLog((l) => typeof l['metrics_url'] === 'string'))['metrics_url']);
  const expiry = async (): Promise<number | undefined> => parsePrometheusText(await (await fetch(metricsUrl)).text()).value('vigil_tls_certificate_expiry_timestamp_seconds');
  assert.equal(await expiry(), soon.notAfter.getTime() / 1000);

  // A live viewer over wss, streaming before the renewal.
  await waitUntil(async () => ((await getJson(`${rec.url}/api/cameras`, TOKEN)).body as Array<{ state: string }>)[0]?.state === 'recording', 30_000, 'the camera records');
  const viewer = new WebSocket(`wss://${hostPort}/websocket/gate`, { ca: ca.caPem, headers: { authorization: `Bearer ${TOKEN}` } });
  let received = 0;
  viewer.on('message', () => received++);
  const viewerClosed = new Promise<number>((resolve) => viewer.on('close', (code) => resolve(code)));
  await once(viewer, 'open');
  await waitUntil(() => received >= 5, 20_000, 'live fragments over wss');

  // The renewed pair (90 days) replaces the files; SIGHUP makes the recorder read them at once.
  const renewed = await ca.issue('renewed', { days: 90 });
  await installPair(renewed, join(dir, 'node-tls'));
  rec.signal('SIGHUP');
  await waitUntil(async () => (await servedSerial(rec.url, { ca: ca.caPem })) === renewed.serial, 15_000, 'the new serial on a new connection');
  await rec.waitForLog((l) => l.msg.startsWith('certificate renewed') && l['serial'] === renewed.serial && l['previous_serial'] === soon.serial);
  const atRenewal = received;
  await waitUntil(() => received >= atRenewal + 10, 20_000, 'the viewer opened before the renewal keeps streaming');
  assert.equal(viewer.readyState, WebSocket.OPEN);
  const again = (await getJson(`${rec.url}/api/health/ready`, TOKEN)).body as { checks: { tls: { expiring: boolean } } };
  assert.equal(again.checks.tls.expiring, false, 'no longer expiring with 90 days left');
  assert.equal(await expiry(), renewed.notAfter.getTime() / 1000);

  // A renewal gone wrong (another pair's key): logged, and the served certificate stays.
  const other = await ca.issue('other');
  await installPair({ ...renewed, keyFile: other.keyFile }, join(dir, 'node-tls'));
  rec.signal('SIGHUP');
  const logged = await rec.waitForLog((l) => l.level === 50 && /is not the key of the certificate/.test(String(l['err'])));
  assert.match(logged.msg, /still serving the previous certificate/);
  assert.equal(await servedSerial(rec.url, { ca: ca.caPem }), renewed.serial);
  const beforeCheck = received;
  await waitUntil(() => received > beforeCheck, 10_000, 'the viewer still streams');
  viewer.close();
  assert.equal(await viewerClosed, 1005, 'closed by the viewer, not by the server');
  assert.ok(!rec.output().includes('BEGIN PRIVATE KEY') && !rec.output().includes('BEGIN EC PRIVATE KEY'), 'no key material in the log');
});

test('a pair that cannot be served refuses the start with exit 2, naming the key to fix; so does an http:// advertise_url with TLS', { timeout: 60_000 }, async (t) => {
  const dir = await tempDir(t);
  const ca = await createTestCa(join(dir, 'ca'));
  const a = await ca.issue('a');
  const b = await ca.issue('b');
  const auth = { tokens: [{ name: 'ops', role: 'operator', sha256: sha256(TOKEN) }] };
  const mismatched = await startRecorderProcess({ dir: join(dir, 'mismatched'), config: { auth, tls: { cert_file: a.certFile, key_file: b.keyFile } }, waitListening: false });
  t.after(() => mismatched.stop());
  assert.equal((await mismatched.waitExit()).code, 2);
  assert.match(mismatched.output(), new RegExp(`vigil-recorder: refusing to start: tls\\.key_file: ${b.keyFile.replace(/[.]/g, '\\.')} is not the key of the certificate`));

  const missing = await startRecorderProcess({ dir: join(dir, 'missing'), config: { auth, tls: { cert_file: join(dir, 'nope.crt'), key_file: a.keyFile } }, waitListening: false });
  t.after(() => missing.stop());
  assert.equal((await missing.waitExit()).code, 2);
  assert.match(missing.output(), /refusing to start: tls\.cert_file: .*nope\.crt cannot be read \(ENOENT\)/);

  const plainAdvertised = await startRecorderProcess({
    dir: join(dir, 'advertised'),
    config: { auth, tls: { cert_file: a.certFile, key_file: a.keyFile }, nodeName: 'n1', cluster: { enabled: true, advertise_url: 'http://127.0.0.1:9997' } },
    waitListening: false,
  });
  t.after(() => plainAdvertised.stop());
  assert.equal((await plainAdvertised.waitExit()).code, 2);
  assert.match(plainAdvertised.output(), /cluster\.advertise_url: must be an https:\/\/ URL when tls is set/);
});
