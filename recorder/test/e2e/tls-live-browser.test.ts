// The live page over HTTPS in Chromium, which trusts only the test CA's root: the page loads, opens wss:// and plays.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { launchChromium } from '@vigil/testing/browser';
import { chromiumHomeTrusting } from '@vigil/testing/chromium-trust';
import { waitUntil } from '@vigil/testing/processes';
import { startRtspCamera } from '@vigil/testing/rtsp-camera';
import { createTestCa } from '@vigil/testing/test-ca';
import { tempDir } from '@vigil/testing/temp-dir';
import { sha256, startRecorderProcess } from '../support/recorder-process.js';
import { getJson } from './helpers.js';
import { installPair, trustInThisProcess } from './tls-helpers.js';

const TOKEN = 'tls-browser-viewer';

test('Chromium trusting the test CA plays the live page over https and wss', { timeout: 120_000 }, async (t) => {
  const dir = await tempDir(t);
  const ca = await createTestCa(join(dir, 'ca'), { intermediate: true });
  trustInThisProcess(ca.caPem);
  const files = await installPair(await ca.issue('node'), join(dir, 'node-tls'));
  const camera = await startRtspCamera({ width: 320, height: 240, fps: 25, gop: 25, bitrateKbps: 300 });
  t.after(() => camera.stop());
  const rec = await startRecorderProcess({
    dir,
    config: { auth: { tokens: [{ name: 'wall', role: 'viewer', sha256: sha256(TOKEN) }] }, tls: { cert_file: files.certFile, key_file: files.keyFile }, cameras: [{ id: 'gate', source: camera.url }] },
  });
  t.after(() => rec.stop());
  await waitUntil(async () => ((await getJson(`${rec.url}/api/cameras`, TOKEN)).body as Array<{ state: string }>)[0]?.state === 'recording', 30_000, 'the camera streams');

  // The root in the browser's certificate store, nothing else: the chain the recorder serves must verify as it is.
  const browser = await launchChromium(t, { home: await chromiumHomeTrusting(join(dir, 'browser-home'), ca.caFile) });
  const page = await browser.newPage();
  const pageErrors: string[] = [];
  page.on('pageerror', (err) => pageErrors.push(err.message));
  const sockets: string[] = [];
  page.on('websocket', (ws) => sockets.push(ws.url()));
  const response = await page.goto(rec.url);
  assert.equal(response?.status(), 200);
  const security = await response?.securityDetails();
  assert.match(security?.protocol ?? '', /^TLS 1\.[23]$/);

  await page.waitForSelector('#token-form:not([hidden])', { timeout: 10_000 });
  await page.fill('#token', TOKEN);
  await page.click('#token-form button');
  await page.waitForSelector('video[data-camera="gate"]', { timeout: 10_000 });
  const frames = (): Promise<number> => page.evaluate(() => document.querySelector<HTMLVideoElement>('video[data-camera="gate"]')?.getVideoPlaybackQuality().totalVideoFrames ?? 0);
  await waitUntil(async () => (await frames()) > 0, 15_000, 'a first picture');
  const first = await frames();
  await waitUntil(async () => (await frames()) >= first + 50, 15_000, 'two more seconds of pictures');
  assert.ok(sockets.length > 0 && sockets.every((url) => url.startsWith(`wss://${new URL(rec.url).host}/websocket/gate`)), `the page's sockets are wss: ${sockets.join(', ')}`);
  assert.deepEqual(pageErrors, []);
});
