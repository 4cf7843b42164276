// The archive page's calendar in a time zone with daylight saving (Chromium in Europe/Berlin): a recording half an
// hour before local midnight in winter is marked on its own day while a summer day is shown, and one half an hour
// after local midnight in summer while a winter day is shown (each day dated with its own UTC offset).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFile, mkdir, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { launchChromium } from '@vigil/testing/browser';
import { tempDir } from '@vigil/testing/temp-dir';
import { segmentRelativePath } from '../../src/recording/segment-name.js';
import { startRecorderProcess } from '../support/recorder-process.js';

const run = promisify(execFile);
const FFMPEG = process.env['VIGIL_TEST_FFMPEG'] ?? 'ffmpeg';

test('calendar days in a daylight-saving time zone are dated with their own offset, whichever season is shown', { timeout: 90_000 }, async (t) => {
  const dir = await tempDir(t);
  const segment = join(dir, 'segment.mp4');
  await run(FFMPEG, ['-hide_banner', '-nostdin', '-loglevel', 'error', '-f', 'lavfi', '-i', 'testsrc2=size=320x240:rate=25', '-t', '2', '-c:v', 'libx264', '-preset', 'veryfast', '-g', '25', '-pix_fmt', 'yuv420p', '-f', 'mp4', '-movflags', 'frag_keyframe+empty_moov+default_base_moof', '-frag_duration', '200000', '-y', segment]);
  const rec = await startRecorderProcess({ dir, config: { auth: { disabled: true }, cameras: [] } });
  t.after(() => rec.stop());
  // 22:30 UTC: 23:30 on the 15th in Berlin in winter (UTC+1), 00:30 on the 16th in summer (UTC+2).
  const winter = Date.UTC(2026, 0, 15, 22, 30);
  const summer = Date.UTC(2026, 6, 15, 22, 30);
  for (const [i, at] of [winter, summer].entries()) {
    const path = join(rec.recordPath, segmentRelativePath('old', new Date(at), i + 1));
    await mkdir(join(path, '..'), { recursive: true });
    await copyFile(segment, path);
    await utimes(path, at / 1000 + 2, at / 1000 + 2);
  }

  const browser = await launchChromium(t);
  const context = await browser.newContext({ timezoneId: 'Europe/Berlin' });
  const page = await context.newPage();
  const marked = async (): Promise<string[]> => page.$$eval('.calendar .day.recorded', (els) => els.map((el) => (el as HTMLElement).dataset['day'] ?? ''));
  const monthBack = async (months: number): Promise<void> => {
    for (let i = 0; i < months; i++) await page.click('.calendar button[title="previous month"]');
  };

  // A summer day shown: July's mark is the 16th (its own offset); January's, 6 months back, the 15th.
  await page.goto(`${rec.url}/archive?camera=old&day=2026-07-16`);
  await page.waitForSelector('.calendar .day.recorded', { timeout: 20_000 });
  assert.deepEqual(await marked(), ['2026-07-16']);
  await monthBack(6);
  assert.deepEqual(await marked(), ['2026-01-15'], 'the winter recording on its own day (23:30 CET), not the 16th');

  // A winter day shown: the same two days.
  await page.goto(`${rec.url}/archive?camera=old&day=2026-01-15`);
  await page.waitForSelector('.calendar .day.recorded', { timeout: 20_000 });
  assert.deepEqual(await marked(), ['2026-01-15']);
  for (let i = 0; i < 6; i++) await page.click('.calendar button[title="next month"]');
  assert.deepEqual(await marked(), ['2026-07-16'], 'the summer recording on its own day (00:30 CEST), not the 15th');
});
