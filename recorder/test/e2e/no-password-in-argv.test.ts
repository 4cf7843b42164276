// No camera password in any process's command line on the ffmpeg path: a forced fallback with transcoding, and ingest: ffmpeg with Basic auth.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { waitUntil } from '@vigil/testing/processes';
import { startRtspCamera } from '@vigil/testing/rtsp-camera';
import { tempDir } from '@vigil/testing/temp-dir';
import { startRecorderProcess } from '../support/recorder-process.js';
import { getJson, segmentFiles } from './helpers.js';

const run = promisify(execFile);
const DIGEST_PASSWORD = 'Dg9-relay-pw';
const BASIC_PASSWORD = 'Bs9-relay-pw';

/** Every process's command line, as any local user can read it. */
async function commandLines(): Promise<Array<{ pid: number; argv: string }>> {
  const out: Array<{ pid: number; argv: string }> = [];
  for (const pid of (await readdir('/proc')).filter((p) => /^\d+$/.test(p))) {
    const argv = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
    if (argv !== '') out.push({ pid: Number(pid), argv: argv.replace(/\0/g, ' ') });
  }
  return out;
}

test('after a forced fallback to ffmpeg (PCMU to transcode) and with ingest: ffmpeg, no command line holds the password; ffmpeg reads the camera through the loopback relay', { timeout: 120_000 }, async (t) => {
  const dir = await tempDir(t);
  const digest = await startRtspCamera({ width: 320, height: 180, profile: 'main', audio: 'pcmu', auth: 'digest', user: 'admin', password: DIGEST_PASSWORD });
  t.after(() => digest.stop());
  const basic = await startRtspCamera({ width: 320, height: 180, auth: 'basic', user: 'admin', password: BASIC_PASSWORD });
  t.after(() => basic.stop());
  const rec = await startRecorderProcess({
    dir,
    config: {
      auth: { disabled: true },
      stall_seconds: 5,
      record: { segment_seconds: 2 },
      cameras: [
        { id: 'transcoded', source: digest.urlWithCredentials(), audio: 'transcode' },
        { id: 'plain-ffmpeg', source: basic.urlWithCredentials(), ingest: 'ffmpeg' },
      ],
    },
  });
  t.after(() => rec.stop());
  const files = async (id: string): Promise<string[]> => (await segmentFiles(rec.recordPath)).filter((f) => f.startsWith(`${id}/`));
  await waitUntil(async () => (await files('transcoded')).length >= 2 && (await files('plain-ffmpeg')).length >= 2, 60_000, 'both cameras record through ffmpeg');
  const cameras = (await getJson(`${rec.url}/api/cameras`)).body as Array<{ id: string; ingest: string; ingest_fallback_reason: string | null }>;
  const transcoded = cameras.find((c) => c.id === 'transcoded');
  assert.equal(transcoded?.ingest, 'ffmpeg', 'the camera fell back to ffmpeg');
  assert.match(transcoded?.ingest_fallback_reason ?? '', /PCMU to transcode into AAC/);
  // The transcoded file carries AAC: ffmpeg got the audio through the relay too.
  const first = join(rec.recordPath, (await files('transcoded'))[0] as string);
  const { stdout } = await run('ffprobe', ['-v', 'error', '-show_entries', 'stream=codec_name', '-of', 'csv=p=0', first]);
  assert.deepEqual(stdout.trim().split('\n').sort(), ['aac', 'h264']);

  const argv = (await commandLines()).filter((p) => !p.argv.includes('fixtures/rtsp_camera.py'));
  // Other tests may run beside this one: only this recorder's ffmpegs are counted.
  const ffmpegs = argv.filter((p) => /vigil-camera=(transcoded|plain-ffmpeg) /.test(p.argv));
  assert.equal(ffmpegs.length, 2, `one ffmpeg per camera (${ffmpegs.map((p) => p.argv).join(' | ')})`);
  for (const p of ffmpegs) assert.match(p.argv, /-i rtsp:\/\/127\.0\.0\.1:\d+\/[0-9a-f]{32} /, 'ffmpeg reads a loopback relay URL with a one-run token');
  for (const secret of [DIGEST_PASSWORD, BASIC_PASSWORD]) assert.deepEqual(argv.filter((p) => p.argv.includes(secret)), [], 'no command line carries a camera password');
  await rec.stop();
  for (const secret of [DIGEST_PASSWORD, BASIC_PASSWORD]) assert.equal(rec.output().includes(secret), false, 'nor does any log line');
});
