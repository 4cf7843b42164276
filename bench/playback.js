// Benchmark "playback": the first picture of a recorded moment in Chromium after a click on the archive page's timeline,
// against the way there was before the playback server (the export job: submit, wait for `done`, play the download),
// timed in the same invocation on the same archive.
//   closed segment:  a click in the last closed segment of the archive (the play window holds that one file);
//                    target: first picture ≤ 500 ms after the click (warm disk).
//   ten segments:    a click ten segments before the archive's end (the window runs across ten files);
//                    target ≤ 1 s.
//   hour segment:    a click 58 minutes into one 3600 s segment (segment_seconds: 3600): the start is found on fragment
//                    headers, not by reading the 58 minutes before it; target as for a closed segment, ≤ 500 ms.
//   buffered seek:   ArrowLeft (10 s back) into what was just played: no new request.
//   baseline:        POST export of one minute (and of ten) → poll every 100 ms → <video src=download> → first picture.
// The archive is one 1-minute fMP4 segment encoded the way ffmpeg ingest writes them (720p25, 2 Mbps, GOP 2 s, 200 ms
// fragments) and copied 20 times under the recorder's names; every file is read once before the runs (a warm disk).
//   node bench/run.js playback [--repeats N]      N clicks of each kind (default 5), medians and maxima
/* global document, window -- functions run in the page (page.evaluate) */
import { execFileSync } from 'node:child_process';
import { createReadStream } from 'node:fs';
import { mkdir, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startArchiveRecorder } from './lib/archive-recorder.js';
import { makeTempDir, removeTempDir } from './lib/lifecycle.js';
import { loadAverageFigure } from './lib/machine.js';
import { median, r1 } from './lib/numbers.js';
import { makeArchive, SEGMENT_ENCODE, SEGMENT_SECONDS } from './lib/segment-archive.js';

export const description =
  'playback: first picture in Chromium after a click on the archive timeline (closed segment: target ≤ 500 ms; across ten segments: ≤ 1 s; buffered seek) vs the export-job path (export, wait, play the download)';

const DIST = fileURLToPath(new URL('../recorder/dist', import.meta.url));
const FFMPEG = process.env.VIGIL_TEST_FFMPEG ?? 'ffmpeg';
const CAMERA = 'bench-cam';
/** A second camera whose archive is one hour-long segment (segment_seconds: 3600), two hours before the other's. */
const HOUR_CAMERA = 'bench-hour';
const HOUR_SECONDS = 3600;
const SEGMENTS = 20;
// Noon UTC, a day in the past: the page's day (TZ=UTC) holds the whole archive.
const ARCHIVE_START = Date.UTC(2025, 2, 10, 12, 0, 0) / 1000;
const TARGET_CLOSED_MS = 500;
const TARGET_TEN_MS = 1000;

export const defaults = { repeats: 5, keep: false };

function log(msg) {
  process.stderr.write(`[playback] ${msg}\n`);
}

/** Clicks the timeline at `ms` (zoomed so that a pixel is a second or less) and waits for the first picture; ms from click. */
async function clickAndTime(page, ms) {
  const x = await page.evaluate((at) => {
    const el = document.querySelector('.timeline .track');
    const t = document.querySelector('.timeline');
    const box = el.getBoundingClientRect();
    return box.left + ((at - Number(t.dataset.viewStart)) / (Number(t.dataset.viewEnd) - Number(t.dataset.viewStart))) * box.width;
  }, ms);
  const box = await page.locator('.timeline .track').boundingBox();
  const before = await page.evaluate(() => window.vigilArchive.stats().lastPlay?.requestedAt ?? -1);
  await page.mouse.click(x, box.y + box.height / 2);
  await page.waitForFunction((b) => {
    const p = window.vigilArchive.stats().lastPlay;
    return p !== undefined && p.requestedAt !== b && p.firstFrameAt !== undefined;
  }, before, { timeout: 30_000 });
  const play = await page.evaluate(() => window.vigilArchive.stats().lastPlay);
  return { ms: play.firstFrameAt - play.requestedAt, fromBuffer: play.fromBuffer };
}

/** Runs in the page: the export-job path to a picture. POST export, poll, play the download; ms from the POST. */
async function exportAndPlay({ camera, from, to }) {
  const t0 = performance.now();
  const res = await fetch(`/api/archive/${camera}/export?from=${from}&to=${to}`, { method: 'POST' });
  const job = await res.json();
  for (;;) {
    const st = await (await fetch(job.status_url, { cache: 'no-store' })).json();
    if (st.state === 'done') break;
    if (st.state === 'failed') throw new Error(`export failed: ${st.reason}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const video = document.createElement('video');
  video.muted = true;
  document.body.append(video);
  const shown = new Promise((resolve) => video.requestVideoFrameCallback(() => resolve(performance.now())));
  video.src = job.download_url;
  await video.play();
  const at = await shown;
  video.remove();
  return at - t0;
}

export async function run(opts, emit) {
  const { segmentRelativePath } = await import(join(DIST, 'src', 'recording', 'segment-name.js'));
  const { chromium } = await import('playwright-core');
  const tmp = await makeTempDir('vigil-bench-playback-');
  const common = { bench: 'playback' };
  emit(loadAverageFigure(common.bench, 'start'));
  let rec;
  let browser;
  try {
    const segment = join(tmp, 'segment.mp4');
    execFileSync(FFMPEG, ['-hide_banner', '-nostdin', '-loglevel', 'error', ...SEGMENT_ENCODE, '-y', segment]);
    const recordPath = join(tmp, 'recordings');
    const files = await makeArchive({ recordPath, segment, camera: CAMERA, start: ARCHIVE_START, count: SEGMENTS, segmentRelativePath });
    // The hour: the minute looped 60 times by stream copy, written with the same fragments (~900 MB).
    const hourStart = ARCHIVE_START - 2 * HOUR_SECONDS;
    const hourFile = join(recordPath, segmentRelativePath(HOUR_CAMERA, new Date(hourStart * 1000), 1));
    await mkdir(join(hourFile, '..'), { recursive: true });
    execFileSync(FFMPEG, ['-hide_banner', '-nostdin', '-loglevel', 'error', '-stream_loop', String(HOUR_SECONDS / SEGMENT_SECONDS - 1), '-i', segment, '-c', 'copy', '-f', 'mp4', '-movflags', 'frag_keyframe+empty_moov+default_base_moof', '-frag_duration', '200000', '-y', hourFile]);
    await utimes(hourFile, hourStart + HOUR_SECONDS, hourStart + HOUR_SECONDS);
    // A warm disk: every file in the page cache (streamed, the hour is too big for one buffer).
    for (const f of [...files, hourFile]) for await (const chunk of createReadStream(f)) void chunk;
    rec = await startArchiveRecorder({ dir: tmp, label: 'playback', recordPath, config: { metrics: { listen: '127.0.0.1:0' } } });
    browser = await chromium.launch({ executablePath: process.env.VIGIL_TEST_CHROMIUM ?? '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu', '--autoplay-policy=no-user-gesture-required'] });
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    const day = new Date(ARCHIVE_START * 1000).toISOString().slice(0, 10);
    /** The page freshly loaded and zoomed in, with one untimed play far from what is timed (the decoder set up). */
    const freshPage = async (camera = CAMERA, start = ARCHIVE_START, seconds = SEGMENTS * SEGMENT_SECONDS) => {
      await page.goto(`${rec.base}/archive?camera=${camera}&day=${day}`);
      await page.waitForSelector('.timeline .span', { timeout: 30_000 }).catch(async (err) => {
        throw new Error(`${err.message}; page says: ${await page.evaluate(() => document.body.innerText.slice(0, 500))}`);
      });
      // Zoom to 20 minutes around the archive, so that a pixel is about a second. The page's first listing of a day
      // already fits the view to what is recorded (the 20 minutes): zoom only while the view is wider than 30 minutes.
      const viewWidth = () => page.evaluate(() => Number(document.querySelector('.timeline').dataset.viewEnd) - Number(document.querySelector('.timeline').dataset.viewStart));
      const center = (start + seconds / 2) * 1000;
      for (let i = 0; i < 8 && (await viewWidth()) > 30 * 60_000; i++) {
        const box = await page.locator('.timeline .track').boundingBox();
        const x = await page.evaluate((at) => {
          const t = document.querySelector('.timeline');
          const b = document.querySelector('.timeline .track').getBoundingClientRect();
          return b.left + ((at - Number(t.dataset.viewStart)) / (Number(t.dataset.viewEnd) - Number(t.dataset.viewStart))) * b.width;
        }, center);
        await page.mouse.move(x, box.y + 10);
        await page.mouse.wheel(0, -100);
        await page.waitForTimeout(50);
      }
      await clickAndTime(page, (start + 90) * 1000);
      await page.waitForTimeout(300);
    };
    const endMs = (ARCHIVE_START + SEGMENTS * SEGMENT_SECONDS) * 1000;
    const kinds = {
      // In the last segment: the window holds one closed file.
      closed_segment: { at: (r) => endMs - 50_000 + r * 2000, page: [] },
      // Ten segments before the end: the window runs across ten files.
      ten_segments: { at: (r) => endMs - 10 * SEGMENT_SECONDS * 1000 + 5000 + r * 2000, page: [] },
      // 58 minutes into the hour-long file.
      hour_segment: { at: (r) => (hourStart + 58 * 60) * 1000 + 10_000 + r * 2000, page: [HOUR_CAMERA, hourStart, HOUR_SECONDS] },
    };
    const results = { closed_segment: [], ten_segments: [], hour_segment: [], buffered_seek: [], export_1_min: [], export_10_min: [] };
    for (let r = 0; r < opts.repeats; r++) {
      for (const [kind, { at, page: where }] of Object.entries(kinds)) {
        // A fresh page each time: nothing of the moment is buffered, every timed click is a new play request.
        await freshPage(...where);
        const m = await clickAndTime(page, at(r));
        if (m.fromBuffer) throw new Error(`${kind}: the click was served from the buffer`);
        results[kind].push(m.ms);
        emit({ ...common, figure: 'first_picture_run', kind, repeat: r + 1, ms: r1(m.ms) });
        log(`${kind} run ${r + 1}: first picture ${r1(m.ms)} ms after the click`);
      }
      await page.waitForTimeout(1500);
      await page.click('.archive-main .hint');
      const before = await page.evaluate(() => window.vigilArchive.stats().lastPlay.requestedAt);
      await page.keyboard.press('ArrowLeft');
      await page.waitForFunction((b) => {
        const p = window.vigilArchive.stats().lastPlay;
        return p.requestedAt !== b && p.firstFrameAt !== undefined;
      }, before, { timeout: 30_000 });
      const seek = await page.evaluate(() => window.vigilArchive.stats().lastPlay);
      results.buffered_seek.push(seek.firstFrameAt - seek.requestedAt);
      emit({ ...common, figure: 'first_picture_run', kind: 'buffered_seek', repeat: r + 1, ms: r1(seek.firstFrameAt - seek.requestedAt), from_buffer: seek.fromBuffer });
      for (const [kind, minutes] of [['export_1_min', 1], ['export_10_min', 10]]) {
        const from = ARCHIVE_START + (SEGMENTS - minutes) * SEGMENT_SECONDS;
        const ms = await page.evaluate(exportAndPlay, { camera: CAMERA, from, to: from + minutes * SEGMENT_SECONDS });
        results[kind].push(ms);
        emit({ ...common, figure: 'first_picture_run', kind, repeat: r + 1, ms: r1(ms) });
        log(`${kind} run ${r + 1}: first picture ${r1(ms)} ms after the submit`);
      }
    }
    const fig = (kind, target) => {
      const med = median(results[kind]);
      const max = Math.max(...results[kind]);
      return { median_ms: r1(med), max_ms: r1(max), ...(target === undefined ? {} : { target_ms: target, pass: max <= target }) };
    };
    const summary = {
      ...common, figure: 'first_picture', repeats: opts.repeats, warm_disk: true,
      closed_segment: fig('closed_segment', TARGET_CLOSED_MS),
      ten_segments: fig('ten_segments', TARGET_TEN_MS),
      hour_segment: fig('hour_segment', TARGET_CLOSED_MS),
      buffered_seek: fig('buffered_seek'),
      baseline_export_1_min: fig('export_1_min'),
      baseline_export_10_min: fig('export_10_min'),
      speedup_vs_export_1_min: r1(median(results.export_1_min) / median(results.closed_segment)),
      speedup_vs_export_10_min: r1(median(results.export_10_min) / median(results.ten_segments)),
    };
    emit(summary);
    emit(loadAverageFigure(common.bench, 'end'));
    log(`closed segment: median ${summary.closed_segment.median_ms} ms, max ${summary.closed_segment.max_ms} ms (target ≤ ${TARGET_CLOSED_MS}) ${summary.closed_segment.pass ? 'PASS' : 'MISS'}`);
    log(`ten segments:   median ${summary.ten_segments.median_ms} ms, max ${summary.ten_segments.max_ms} ms (target ≤ ${TARGET_TEN_MS}) ${summary.ten_segments.pass ? 'PASS' : 'MISS'}`);
    log(`hour segment:   median ${summary.hour_segment.median_ms} ms, max ${summary.hour_segment.max_ms} ms (target ≤ ${TARGET_CLOSED_MS}) ${summary.hour_segment.pass ? 'PASS' : 'MISS'}`);
    log(`buffered seek:  median ${summary.buffered_seek.median_ms} ms; export path: 1 min ${summary.baseline_export_1_min.median_ms} ms, 10 min ${summary.baseline_export_10_min.median_ms} ms`);
  } finally {
    await browser?.close().catch(() => undefined);
    if (rec !== undefined) await rec.stop().catch(() => undefined);
    if (!opts.keep) await removeTempDir(tmp);
  }
}
