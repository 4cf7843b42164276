// Native ingest records B-frame cameras (H.264 Main/High, H.265) itself: every picture, in presentation order, across files; AAC sent as LATM is kept.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { probe } from '@vigil/testing/media-probe';
import { waitUntil } from '@vigil/testing/processes';
import { startRtspCamera } from '@vigil/testing/rtsp-camera';
import { readFrameCodes, startStampCamera } from '@vigil/testing/stamp-camera';
import { tempDir } from '@vigil/testing/temp-dir';
import { startRecorderProcess } from '../support/recorder-process.js';
import { currentFilename, getJson, segmentFiles } from './helpers.js';
import { submit, waitForJob } from './jobs-helpers.js';

const run = promisify(execFile);
const FPS = 25;
const SEGMENT_SECONDS = 2;
const WIDTH = 320;
const HEIGHT = 180;
/** Full segments checked per camera (after the first, which starts wherever the camera was). */
const FILES = 3;

/**
 * What `ffmpeg -f null` reports, without its complaint about decode times that collide once it rescales them to the
 * frame rate it guessed: the stamp camera times its pictures by when Python got round to them, so under load two can be
 * less than a frame interval apart — the camera's own timing, not a decode error (the picture numbers are checked).
 */
function decodeErrors(errors: string): string {
  return errors.split('\n').filter((l) => l !== '' && !/non monotonically increasing dts to muxer/.test(l)).join('\n');
}

interface CameraEntry {
  id: string;
  ingest: string | null;
  ingest_fallback_reason: string | null;
  codec: string | null;
}

test('B-frame cameras (H.264 Main, H.264 High with LATM audio, H.265) are recorded natively: every picture in order, no hole between files, the audio kept', { timeout: 180_000 }, async (t) => {
  const dir = await tempDir(t);
  const small = { width: WIDTH, height: HEIGHT, fps: FPS, gop: FPS, bitrateKbps: 400 };
  const stampH264 = await startStampCamera({ ...small, bframes: 2 });
  t.after(() => stampH264.stop());
  const stampH265 = await startStampCamera({ ...small, codec: 'h265', bframes: 2 });
  t.after(() => stampH265.stop());
  const latm = await startRtspCamera({ ...small, profile: 'high', bframes: 2, audio: 'latm' });
  t.after(() => latm.stop());
  const rec = await startRecorderProcess({
    dir,
    config: {
      auth: { disabled: true },
      stall_seconds: 5,
      record: { segment_seconds: SEGMENT_SECONDS },
      cameras: [{ id: 'h264-b', source: stampH264.url }, { id: 'h265-b', source: stampH265.url }, { id: 'high-b-latm', source: latm.url }],
    },
  });
  t.after(() => rec.stop());
  const ids = ['h264-b', 'h265-b', 'high-b-latm'];
  const current = (id: string) => currentFilename(rec.url, id);
  /** Closed files of a camera, oldest first, without the first one (it starts wherever the camera was). */
  const closed = async (id: string): Promise<string[]> => {
    const open = await current(id);
    return (await segmentFiles(rec.recordPath)).filter((f) => f.startsWith(`${id}/`) && f !== open).slice(1).map((f) => join(rec.recordPath, f));
  };
  await waitUntil(async () => (await Promise.all(ids.map(closed))).every((files) => files.length >= FILES), 90_000, `${FILES} full segments from every camera`).catch((err: unknown) => {
    const warnings = rec.logs().filter((l) => l.level >= 40).map((l) => `${String(l['camera'])} ${l.msg} ${String(l['err'] ?? l['reason'] ?? '')}`);
    throw new Error(`${String(err)}; warnings: ${warnings.slice(-10).join(' | ')}`);
  });

  const entries = new Map(((await getJson(`${rec.url}/api/cameras`)).body as CameraEntry[]).map((c) => [c.id, c]));
  for (const id of ids) {
    assert.equal(entries.get(id)?.ingest, 'native', `${id} is read natively (${entries.get(id)?.ingest_fallback_reason ?? ''})`);
    assert.equal(entries.get(id)?.ingest_fallback_reason, null);
  }
  assert.deepEqual(rec.logs().filter((l) => /falling back to ffmpeg|stepped/.test(l.msg)).map((l) => l.msg), [], 'no fallback, no clock step');
  assert.match(entries.get('h265-b')?.codec ?? '', /^hvc1\./);

  // Every picture the stamp cameras made, in order: their numbers follow on within each file and from file to file.
  for (const id of ['h264-b', 'h265-b']) {
    const files = (await closed(id)).slice(0, FILES);
    let previous: number | undefined;
    for (const file of files) {
      assert.equal(decodeErrors((await probe(file)).errors), '', `${id}: ${file} decodes without an error`);
      const numbers = (await readFrameCodes(file, WIDTH, HEIGHT)).map((c) => c.number);
      // Whole GOPs of 25 pictures, at least 2 s of them: the stamp camera times its pictures by when Python pushed
      // them, so two GOPs can span a few milliseconds less than 2 s, and the file then ends a GOP later.
      assert.ok(numbers.length >= FPS * SEGMENT_SECONDS && numbers.length % FPS === 0, `${id}: ${numbers.length} pictures in ${file}, whole GOPs`);
      const out = numbers.findIndex((n, i) => i > 0 && n !== (numbers[i - 1] as number) + 1);
      assert.equal(out, -1, `${id}: pictures in presentation order, none missing (${numbers.slice(Math.max(0, out - 3), out + 3).join(', ')})`);
      if (previous !== undefined) assert.equal(numbers[0], previous + 1, `${id}: ${file} starts with the picture after the previous file's last`);
      previous = numbers.at(-1);
    }
  }

  // An export across several B-frame files: still every picture, in order (the export copies the files' samples).
  const listing = (await getJson(`${rec.url}/api/archive/h264-b/segments`)).body as { archive: Array<{ mtime: number; is_open: boolean }> };
  const to = Math.max(...listing.archive.filter((a) => !a.is_open).map((a) => a.mtime)) - 1;
  const ex = await submit(rec.url, `/api/archive/h264-b/export?from=${to - 3}&to=${to}`);
  assert.equal(ex.status, 202, JSON.stringify(ex.body));
  const done = await waitForJob(rec.url, String(ex.body['job_id']), ['done', 'failed'], 60_000);
  assert.equal(done.state, 'done', JSON.stringify(done));
  const exported = join(rec.workDir, 'jobs', `${done.job_id}.mp4`);
  const exportNumbers = (await readFrameCodes(exported, WIDTH, HEIGHT)).map((c) => c.number);
  assert.ok(exportNumbers.length >= 2 * FPS, `the export holds the window (${exportNumbers.length} pictures)`);
  const gap = exportNumbers.findIndex((n, i) => i > 0 && n !== (exportNumbers[i - 1] as number) + 1);
  assert.equal(gap, -1, `the export's pictures follow on, in order (${exportNumbers.slice(Math.max(0, gap - 3), gap + 3).join(', ')})`);

  // The LATM camera: H.264 High with B-frames and its AAC, as ffmpeg's path would store it.
  const latmFiles = (await closed('high-b-latm')).slice(0, FILES);
  const audioFrames: number[] = [];
  for (const file of latmFiles) {
    assert.equal(decodeErrors((await probe(file)).errors), '', `${file} decodes without an error`);
    const { stdout } = await run('ffprobe', ['-v', 'error', '-count_frames', '-show_entries', 'stream=codec_type,codec_name,profile,sample_rate,nb_read_frames', '-of', 'json', file]);
    const streams = (JSON.parse(stdout) as { streams: Array<Record<string, string | number>> }).streams;
    const video = streams.find((s) => s['codec_type'] === 'video');
    const audio = streams.find((s) => s['codec_type'] === 'audio');
    assert.equal(video?.['profile'], 'High');
    assert.equal(Number(video?.['nb_read_frames']), FPS * SEGMENT_SECONDS, 'every picture');
    assert.equal(audio?.['codec_name'], 'aac', 'the LATM audio is stored as AAC');
    assert.equal(Number(audio?.['sample_rate']), 48_000);
    audioFrames.push(Number(audio?.['nb_read_frames']));
  }
  // 48 kHz AAC frames are 1024 samples: 93.75 in 2 s. A file holds the audio that plays with its pictures, so where a
  // boundary falls inside an audio frame, that frame may go to either file: one file can hold two or three more, the
  // next as many fewer. Consecutive files together hold every frame (the ends aside).
  for (const frames of audioFrames) assert.ok(Math.abs(frames - (48_000 * SEGMENT_SECONDS) / 1024) <= 4, `audio frames per file ${audioFrames.join(', ')}`);
  const total = audioFrames.reduce((a, b) => a + b, 0);
  assert.ok(Math.abs(total - (48_000 * SEGMENT_SECONDS * latmFiles.length) / 1024) <= 2.5, `audio frames in ${latmFiles.length} consecutive files: ${total} (${audioFrames.join(', ')})`);
});
