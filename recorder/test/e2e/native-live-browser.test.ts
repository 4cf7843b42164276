// Chromium plays native ingest's per-picture fragments: H.264 High with AAC, and H.265 where this Chromium decodes it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { launchChromium } from '@vigil/testing/browser';
import { waitUntil } from '@vigil/testing/processes';
import { startRtspCamera } from '@vigil/testing/rtsp-camera';
import { tempDir } from '@vigil/testing/temp-dir';
import { startRecorderProcess } from '../support/recorder-process.js';
import { getJson } from './helpers.js';

interface Entry {
  id: string;
  state: string;
  codec: string | null;
  ingest: string | null;
}

test('the live page plays natively ingested H.264 High + AAC (and H.265 when the browser can)', { timeout: 120_000 }, async (t) => {
  const dir = await tempDir(t);
  const small = { width: 320, height: 180, fps: 25, gop: 25, bitrateKbps: 400 };
  const aac = await startRtspCamera({ ...small, profile: 'high', audio: 'aac' });
  t.after(() => aac.stop());
  const hevc = await startRtspCamera({ ...small, codec: 'h265' });
  t.after(() => hevc.stop());
  const rec = await startRecorderProcess({
    dir,
    config: { auth: { disabled: true }, stall_seconds: 5, cameras: [{ id: 'hall', source: aac.url }, { id: 'yard', source: hevc.url }] },
  });
  t.after(() => rec.stop());
  let entries: Entry[] = [];
  await waitUntil(async () => {
    entries = (await getJson(`${rec.url}/api/cameras`)).body as Entry[];
    return entries.every((e) => e.state === 'recording' && e.codec !== null);
  }, 20_000, 'both cameras stream');
  assert.deepEqual(entries.map((e) => e.ingest), ['native', 'native']);

  const browser = await launchChromium(t);
  const page = await browser.newPage();
  const pageErrors: string[] = [];
  page.on('pageerror', (err) => pageErrors.push(err.message));
  await page.goto(rec.url);
  const codecOf = (id: string): string => entries.find((e) => e.id === id)?.codec ?? '';
  const hevcPlayable = await page.evaluate((codec) => MediaSource.isTypeSupported(`video/mp4; codecs="${codec}"`), codecOf('yard'));
  t.diagnostic(`this Chromium ${hevcPlayable ? 'plays' : 'does not play'} ${codecOf('yard')} in MSE`);
  const playing = hevcPlayable ? ['hall', 'yard'] : ['hall'];

  const currentTime = (id: string): Promise<number> =>
    page.evaluate((cam) => document.querySelector<HTMLVideoElement>(`video[data-camera="${cam}"]`)?.currentTime ?? 0, id);
  for (const id of playing) {
    await page.waitForSelector(`video[data-camera="${id}"]`, { timeout: 10_000 });
    await waitUntil(async () => (await currentTime(id)) > 0, 15_000, `${id} shows pictures`);
  }
  const before = await Promise.all(playing.map(currentTime));
  await new Promise((r) => setTimeout(r, 3000));
  const after = await Promise.all(playing.map(currentTime));
  playing.forEach((id, i) => assert.ok((after[i] ?? 0) > (before[i] ?? 0) + 1.5, `${id}: playback advances (${before[i]} → ${after[i]})`));
  const hasAudio = await page.evaluate(() => {
    const v = document.querySelector<HTMLVideoElement>('video[data-camera="hall"]') as HTMLVideoElement & { audioTracks?: { length: number }; webkitAudioDecodedByteCount?: number };
    return (v.webkitAudioDecodedByteCount ?? 0) > 0 || (v.audioTracks?.length ?? 0) > 0;
  });
  assert.ok(hasAudio, 'the AAC track reaches the browser');
  // What each tile says (why a player was torn down, if one was) makes a page error here explainable.
  const statuses = await page.evaluate(() => [...document.querySelectorAll('.tile')].map((tile) => tile.textContent ?? ''));
  assert.deepEqual(pageErrors, [], `tiles: ${JSON.stringify(statuses)}`);

  // A busy page opens its MediaSource late: the init segment and the cached GOP are already there when it opens. They
  // are played in the order they came, the init segment first, on the one connection (seen on a loaded machine: a
  // fragment appended before the init segment, a media buffer error and a reconnect).
  const slowPage = await browser.newPage();
  const slowPageErrors: string[] = [];
  slowPage.on('pageerror', (err) => slowPageErrors.push(err.message));
  await slowPage.addInitScript(delaySourceOpen, SOURCE_OPEN_DELAY_MS);
  await slowPage.goto(rec.url);
  const slowTime = (): Promise<number> => slowPage.evaluate(() => document.querySelector<HTMLVideoElement>('video[data-camera="hall"]')?.currentTime ?? 0);
  const slowStats = (): Promise<{ connections: number; lastError?: string } | undefined> =>
    slowPage.evaluate(() => (window as unknown as { vigilLive: { stats(): Record<string, { connections: number; lastError?: string }> } }).vigilLive.stats()['hall']);
  await waitUntil(async () => (await slowTime()) > 1, 15_000, 'the page that opened its MediaSource late shows pictures').catch(async (err: Error) => {
    throw new Error(`${err.message}: ${JSON.stringify(await slowStats())}`);
  });
  const hall = await slowStats();
  assert.equal(hall?.connections, 1, `no reconnect (${JSON.stringify(hall)})`);
  assert.deepEqual(slowPageErrors, []);
});

const SOURCE_OPEN_DELAY_MS = 700;

/** Runs in the page before its scripts: every MediaSource's 'sourceopen' reaches its listeners `delayMs` late. */
function delaySourceOpen(delayMs: number): void {
  const add = MediaSource.prototype.addEventListener;
  MediaSource.prototype.addEventListener = function (this: MediaSource, type: string, listener: EventListenerOrEventListenerObject | null, options?: boolean | AddEventListenerOptions) {
    if (type !== 'sourceopen' || typeof listener !== 'function') return add.call(this, type, listener as EventListenerOrEventListenerObject, options);
    return add.call(this, type, (ev: Event) => window.setTimeout(() => listener.call(this, ev), delayMs), options);
  } as typeof add;
}
