// Live view in a real browser: token prompt, MSE playback of a time-stamped RTSP camera, a picture and latency within live bounds.
// The performance targets (first picture < 1 s, p95 latency < 1 s) are measured by `npm run bench -- live`, not asserted here:
// a loaded 2-core test machine must not fail a functional test on a timing figure.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { installStampReader, launchChromium, percentile } from '@vigil/testing/browser';
import { waitUntil } from '@vigil/testing/processes';
import { sha256, startRecorderProcess } from '../support/recorder-process.js';
import { startStampCamera } from '@vigil/testing/stamp-camera';
import { tempDir } from '@vigil/testing/temp-dir';
import { getJson } from './helpers.js';

const TOKEN = 'browser-viewer-token';
/** How long playback is watched; VIGIL_LIVE_SOAK_SECONDS=60 for a longer soak. */
const SOAK_SECONDS = Number(process.env['VIGIL_LIVE_SOAK_SECONDS'] ?? 20);
/**
 * Functional bounds, far above the targets: a viewer that buffers instead of chasing the live edge drifts past them,
 * a slow machine does not. The targets themselves live in bench/live-latency.js.
 */
const FIRST_FRAME_BOUND_MS = 5000;
const P95_LATENCY_BOUND_MS = 5000;

interface TileStats {
  firstFrameMs: number | undefined;
  stalls: number;
  liveEdgeJumps: number;
  connections: number;
}

test(`live view in Chromium: token prompt, a first picture, ${SOAK_SECONDS} s of playback that keeps moving, live latency`, { timeout: (SOAK_SECONDS + 90) * 1000 }, async (t) => {
  const dir = await tempDir(t);
  const camera = await startStampCamera({ width: 640, height: 360, fps: 25, gop: 25 });
  t.after(() => camera.stop());
  const rec = await startRecorderProcess({
    dir,
    config: { stall_seconds: 5, auth: { tokens: [{ name: 'wall', role: 'viewer', sha256: sha256(TOKEN) }] }, cameras: [{ id: 'gate', source: camera.url }] },
  });
  t.after(() => rec.stop());
  await waitUntil(async () => ((await getJson(`${rec.url}/api/cameras`, TOKEN)).body as Array<{ state: string }>)[0]?.state === 'recording', 20_000, 'the camera streams');

  const browser = await launchChromium(t);
  const page = await browser.newPage();
  const pageErrors: string[] = [];
  page.on('pageerror', (err) => pageErrors.push(err.message));
  // Every URL the page asks for (requests and the live socket): the token must be in none.
  const urls: string[] = [];
  page.on('request', (req) => urls.push(req.url()));
  page.on('websocket', (ws) => urls.push(ws.url()));
  await page.goto(rec.url);

  // Authentication is on: the page asks for a token, keeps it for the session and plays.
  await page.waitForSelector('#token-form:not([hidden])', { timeout: 10_000 });
  await page.fill('#token', TOKEN);
  await page.click('#token-form button');
  await page.waitForSelector('video[data-camera="gate"]', { timeout: 10_000 });
  assert.equal(await page.evaluate(() => sessionStorage.getItem('vigil.token')), TOKEN);
  assert.equal(await page.isVisible('#token-form'), false, 'once the token is accepted the prompt goes away');

  const stats = (): Promise<TileStats | undefined> => page.evaluate(() => (window as unknown as { vigilLive?: { stats(): Record<string, unknown> } }).vigilLive?.stats()['gate'] as TileStats | undefined);
  await waitUntil(async () => (await stats())?.firstFrameMs !== undefined, 10_000, 'the first frame');
  const first = await stats();
  t.diagnostic(`first frame ${Math.round(first?.firstFrameMs ?? NaN)} ms after the socket opened`);
  assert.ok((first?.firstFrameMs ?? Infinity) < FIRST_FRAME_BOUND_MS, `a first picture soon after the socket opened (${first?.firstFrameMs} ms)`);

  await page.evaluate(installStampReader, 'gate');
  const quality = (): Promise<{ frames: number; dropped: number; time: number }> =>
    page.evaluate(() => {
      const v = document.querySelector<HTMLVideoElement>('video[data-camera="gate"]') as HTMLVideoElement;
      const q = v.getVideoPlaybackQuality();
      return { frames: q.totalVideoFrames, dropped: q.droppedVideoFrames, time: v.currentTime };
    });
  // Let the live-edge chase settle before counting stalls.
  await new Promise((r) => setTimeout(r, 2000));
  const settled = await stats();
  let previous = await quality();
  const startFrames = previous.frames;
  // A second in which playback barely moved: on a loaded 2-core machine (three of these tests at once, a neighbour
  // starting its cameras and browser) such a second was seen in 5 of 81 runs, each time followed by normal playback.
  // A player that freezes — two such seconds in a row, or more than two in the soak — fails.
  const slowSeconds: string[] = [];
  let slowRun = 0;
  for (let s = 0; s < SOAK_SECONDS; s++) {
    await new Promise((r) => setTimeout(r, 1000));
    const now = await quality();
    // 25 fps: a second with a brief underrun on a loaded machine still shows a good part of them.
    const moved = now.frames > previous.frames + 5 && now.time > previous.time + 0.25;
    slowRun = moved ? 0 : slowRun + 1;
    if (!moved) slowSeconds.push(`second ${s + 1}: frames ${previous.frames} → ${now.frames}, time ${previous.time} → ${now.time}`);
    if (slowRun >= 2 || slowSeconds.length > 2) assert.fail(`playback keeps moving: ${slowSeconds.join('; ')} (${JSON.stringify(await stats())})`);
    previous = now;
  }
  if (slowSeconds.length > 0) t.diagnostic(`seconds in which playback barely moved: ${slowSeconds.join('; ')}`);
  const end = await stats();
  const latencies = await page.evaluate(() => (window as unknown as { __stampLatencies: Record<string, number[]> }).__stampLatencies['gate'] ?? []);
  const p50 = percentile(latencies, 50);
  const p95 = percentile(latencies, 95);
  t.diagnostic(`frames ${previous.frames - startFrames} in ${SOAK_SECONDS} s, dropped ${previous.dropped}; latency samples ${latencies.length}, p50 ${p50} ms, p95 ${p95} ms, max ${Math.max(...latencies)} ms; jumps ${end?.liveEdgeJumps}`);
  assert.ok(latencies.length >= SOAK_SECONDS * 10, `the stamp was read from many frames (${latencies.length})`);
  assert.ok(p95 < P95_LATENCY_BOUND_MS, `playback stays at the live edge: p95 camera-to-screen latency ${p95} ms`);
  // Frames and playback time advancing every second (above) is what a viewer sees. The page's 'waiting' events are
  // a quality figure, not a functional one: on a loaded 2-core machine six were seen in 20 s while all 25 frames a
  // second were shown. They are reported here and measured by the benchmark (`stalls`), not asserted.
  t.diagnostic(`brief data underruns ('waiting') during the soak: ${(end?.stalls ?? 0) - (settled?.stalls ?? 0)}`);
  assert.equal(end?.connections, 1, `no reconnects (${JSON.stringify(end)})`);
  assert.deepEqual(pageErrors, []);
  // The token went as a header only; the socket carried a short-lived ticket for this camera's live view.
  assert.deepEqual(urls.filter((u) => u.includes(TOKEN) || /[?&]access_token=/.test(u)), [], 'no URL carries the token');
  const sockets = urls.filter((u) => u.startsWith('ws'));
  assert.ok(sockets.length === 1 && new URL(sockets[0] as string).searchParams.get('ticket')?.startsWith('v1.') === true, `the socket's URL carries a ticket: ${sockets.join(' ')}`);
});
