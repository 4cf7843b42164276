// Native RTSP ingest against real GStreamer cameras: every codec and auth, files equivalent to ffmpeg's, no password in any argv (B-frames: native-ingest-bframes.test.ts).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { probe } from '@vigil/testing/media-probe';
import { waitUntil } from '@vigil/testing/processes';
import { startRtspCamera, type RtspCameraOptions } from '@vigil/testing/rtsp-camera';
import { tempDir } from '@vigil/testing/temp-dir';
import { startRecorderProcess } from '../support/recorder-process.js';
import { currentFilename, getJson, segmentFiles } from './helpers.js';
import { submit, waitForJob } from './jobs-helpers.js';

const run = promisify(execFile);
const FPS = 25;
const SEGMENT_SECONDS = 2;
const DIGEST_PASSWORD = 'Dg7-native-pw';
const BASIC_PASSWORD = 'Bs4-native-pw';

interface StreamFacts {
  video: { codec: string; profile: string; width: number; height: number; frames: number } | undefined;
  audio: { codec: string; sampleRate: number; frames: number } | undefined;
}

/** What a player sees in a file: codecs, profile, size, and every frame counted by decoding. */
async function streamFacts(path: string): Promise<StreamFacts> {
  const { stdout } = await run('ffprobe', ['-v', 'error', '-count_frames', '-show_entries', 'stream=codec_type,codec_name,profile,width,height,sample_rate,nb_read_frames', '-of', 'json', path]);
  const streams = (JSON.parse(stdout) as { streams: Array<Record<string, string | number>> }).streams;
  const v = streams.find((s) => s['codec_type'] === 'video');
  const a = streams.find((s) => s['codec_type'] === 'audio');
  return {
    video: v && { codec: String(v['codec_name']), profile: String(v['profile']), width: Number(v['width']), height: Number(v['height']), frames: Number(v['nb_read_frames']) },
    audio: a && { codec: String(a['codec_name']), sampleRate: Number(a['sample_rate']), frames: Number(a['nb_read_frames']) },
  };
}

interface CameraEntry {
  id: string;
  ingest: string | null;
  ingest_fallback_reason: string | null;
  codec: string | null;
  state: string;
}

/** Every process's command line on this machine, as the kernel shows it to any local user. */
async function allCommandLines(): Promise<string[]> {
  const out: string[] = [];
  for (const pid of (await readdir('/proc')).filter((p) => /^\d+$/.test(p))) {
    const argv = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
    if (argv !== '') out.push(argv.replace(/\0/g, ' '));
  }
  return out;
}

/** Closed segments of a camera after its first (which may begin mid-stream), oldest first. */
async function fullSegments(recordPath: string, id: string, current: string | undefined): Promise<string[]> {
  const files = (await segmentFiles(recordPath)).filter((f) => f.startsWith(`${id}/`) && f !== current);
  return files.slice(1).map((f) => join(recordPath, f));
}

test('native ingest records H.264 baseline/main/high, H.265 and AAC with Digest and Basic auth, over TCP and UDP; files match ffmpeg’s; no argv holds a password', { timeout: 180_000 }, async (t) => {
  const dir = await tempDir(t);
  const small: RtspCameraOptions = { width: 320, height: 180, fps: FPS, gop: FPS, bitrateKbps: 400 };
  const specs: Record<string, RtspCameraOptions> = {
    'h264-baseline': { ...small, auth: 'digest', user: 'admin', password: DIGEST_PASSWORD },
    'h264-main': { ...small, profile: 'main', auth: 'basic', user: 'admin', password: BASIC_PASSWORD },
    'h264-high-aac': { ...small, profile: 'high', audio: 'aac' },
    h265: { ...small, codec: 'h265' },
    'h264-pcmu': { ...small, profile: 'main', audio: 'pcmu' },
    'h264-udp': { ...small, profile: 'main' },
  };
  const udp = new Set(['h264-udp']);
  const cameras = Object.fromEntries(await Promise.all(Object.entries(specs).map(async ([id, o]) => [id, await startRtspCamera(o)] as const)));
  t.after(() => Promise.all(Object.values(cameras).map((c) => c.stop())));
  const source = (id: string): string => (specs[id]?.auth ?? 'none') === 'none' ? (cameras[id]?.url as string) : (cameras[id]?.urlWithCredentials() as string);
  // The same two cameras read by ffmpeg too: what native writes must be what ffmpeg writes. Each twin reads a camera
  // of its own with the same settings: GStreamer's RTSP server, serving one shared stream with audio to two clients,
  // deadlocked now and then on the second client's PLAY (both clients then saw no answer to anything, in 2 of ~10
  // CI runs) — a fault of the test camera, not of either ingest path.
  const twins = ['h264-high-aac', 'h265'];
  const twinCameras = Object.fromEntries(await Promise.all(twins.map(async (id) => [id, await startRtspCamera(specs[id] as RtspCameraOptions)] as const)));
  t.after(() => Promise.all(Object.values(twinCameras).map((c) => c.stop())));
  const rec = await startRecorderProcess({
    dir,
    config: {
      auth: { disabled: true },
      stall_seconds: 5,
      record: { segment_seconds: SEGMENT_SECONDS },
      cameras: [
        ...Object.keys(specs).map((id) => ({ id, source: source(id), ...(udp.has(id) ? { rtsp_transport: 'udp' } : {}) })),
        ...twins.map((id) => ({ id: `${id}-ffmpeg`, source: twinCameras[id]?.url as string, ingest: 'ffmpeg' })),
      ],
    },
  });
  t.after(() => rec.stop());

  const list = async (): Promise<Map<string, CameraEntry>> => new Map(((await getJson(`${rec.url}/api/cameras`)).body as CameraEntry[]).map((c) => [c.id, c]));
  const current = (id: string) => currentFilename(rec.url, id);
  const ids = [...Object.keys(specs), ...twins.map((id) => `${id}-ffmpeg`)];
  const behind = async (): Promise<string[]> => {
    const out: string[] = [];
    for (const id of ids) {
      const n = (await fullSegments(rec.recordPath, id, await current(id))).length;
      if (n < 2) out.push(`${id}: ${n}`);
    }
    return out;
  };
  await waitUntil(async () => (await behind()).length === 0, 90_000, 'two full segments from every camera').catch(async (err: unknown) => {
    const warnings = rec.logs().filter((l) => l.level >= 40).map((l) => `${String(l['camera'])} ${l.msg} ${String(l['err'] ?? l['reason'] ?? '')}`);
    throw new Error(`${String(err)}; behind: ${(await behind()).join(', ')}; warnings: ${warnings.slice(-15).join(' | ')}`);
  });

  // How each camera is read, as /api/cameras tells an operator.
  const entries = await list();
  for (const id of ['h264-baseline', 'h264-main', 'h264-high-aac', 'h265', 'h264-pcmu', 'h264-udp']) {
    assert.equal(entries.get(id)?.ingest, 'native', `${id} is read natively (${entries.get(id)?.ingest_fallback_reason ?? ''})`);
    assert.equal(entries.get(id)?.ingest_fallback_reason, null);
  }
  assert.equal(entries.get('h265-ffmpeg')?.ingest, 'ffmpeg');
  assert.equal(entries.get('h264-high-aac')?.codec, entries.get('h264-high-aac-ffmpeg')?.codec, 'the same codec string for MSE either way');
  // ffmpeg keeps H.265 parameter sets in the samples (hev1); native puts them in the sample entry only (hvc1, which Safari needs).
  assert.equal(entries.get('h265')?.codec?.replace(/^hvc1/, 'hev1'), entries.get('h265-ffmpeg')?.codec);
  assert.match(entries.get('h265')?.codec ?? '', /^hvc1\.1\./);
  const fallbacks = rec.logs().filter((l) => /falling back to ffmpeg/.test(l.msg));
  assert.deepEqual(fallbacks.map((l) => l['camera']), [], 'no camera fell back');

  // Every full segment decodes cleanly and holds every picture the camera sent: 25 fps × 2 s (GOP 1 s).
  const expected: Record<string, { codec: string; profile: RegExp; audio?: string }> = {
    'h264-baseline': { codec: 'h264', profile: /Baseline/ },
    'h264-main': { codec: 'h264', profile: /^Main$/ },
    'h264-high-aac': { codec: 'h264', profile: /^High$/, audio: 'aac' },
    h265: { codec: 'hevc', profile: /^Main$/ },
    'h264-pcmu': { codec: 'h264', profile: /^Main$/ },
    'h264-udp': { codec: 'h264', profile: /^Main$/ },
    'h264-high-aac-ffmpeg': { codec: 'h264', profile: /^High$/, audio: 'aac' },
    'h265-ffmpeg': { codec: 'hevc', profile: /^Main$/ },
  };
  const facts = new Map<string, StreamFacts[]>();
  for (const id of ids) {
    const files = (await fullSegments(rec.recordPath, id, await current(id))).slice(0, 2);
    const want = expected[id] as { codec: string; profile: RegExp; audio?: string };
    const list: StreamFacts[] = [];
    for (const file of files) {
      const p = await probe(file);
      assert.equal(p.errors, '', `${id}: ${file} decodes without an error`);
      assert.ok(p.startTime < 0.1, `${id}: starts at zero (${p.startTime})`);
      const f = await streamFacts(file);
      assert.equal(f.video?.codec, want.codec, `${id}: codec`);
      assert.match(f.video?.profile ?? '', want.profile, `${id}: profile`);
      assert.deepEqual([f.video?.width, f.video?.height], [320, 180], `${id}: picture size`);
      assert.equal(f.video?.frames, FPS * SEGMENT_SECONDS, `${id}: every picture of ${SEGMENT_SECONDS} s at ${FPS} fps`);
      if (want.audio === undefined) assert.equal(f.audio, undefined, `${id}: no audio track`);
      else {
        assert.equal(f.audio?.codec, want.audio, `${id}: audio codec`);
        assert.equal(f.audio?.sampleRate, 48_000);
        // 48 kHz AAC frames are 1024 samples: about 94 in 2 s, give or take the frames at the cut.
        assert.ok(Math.abs((f.audio?.frames ?? 0) - (48_000 * SEGMENT_SECONDS) / 1024) <= 3, `${id}: audio frames ${f.audio?.frames}`);
      }
      list.push(f);
    }
    facts.set(id, list);
  }
  for (const id of twins) {
    const native = facts.get(id)?.[0];
    const ffmpeg = facts.get(`${id}-ffmpeg`)?.[0];
    assert.deepEqual({ ...native?.video }, { ...ffmpeg?.video }, `${id}: the native file's video is what ffmpeg writes`);
    assert.equal(native?.audio?.codec, ffmpeg?.audio?.codec);
  }

  // The archive works on native files: listing and an export over the last closed minutes.
  const listing = await getJson(`${rec.url}/api/archive/h264-high-aac/segments`);
  assert.equal(listing.status, 200);
  const archive = (listing.body as { archive: Array<{ mtime: number; is_open: boolean }> }).archive;
  assert.ok(archive.length >= 2, `the listing shows the closed segments (${archive.length})`);
  // A window of the past, inside closed files (a closed file's mtime is its end).
  const to = Math.max(...archive.filter((a) => !a.is_open).map((a) => a.mtime)) - 1;
  const ex = await submit(rec.url, `/api/archive/h264-high-aac/export?from=${to - 4}&to=${to}`);
  assert.equal(ex.status, 202, JSON.stringify(ex.body));
  const done = await waitForJob(rec.url, String(ex.body['job_id']), ['done', 'failed'], 60_000);
  assert.equal(done.state, 'done', JSON.stringify(done));
  const exported = await probe(join(rec.workDir, 'jobs', `${done.job_id}.mp4`));
  // Decoder errors fail the test. `ffmpeg -f null` has warned about "non monotonically increasing dts" on some native
  // exports (it rescales the pictures to the frame rate it guesses); such warnings were seen together with the gaps at
  // file boundaries checked below, and are tolerated: the export's own timestamps are what a player needs.
  const decodeErrors = exported.errors.split('\n').filter((l) => l !== '' && !/non monotonically increasing dts to muxer/.test(l));
  assert.deepEqual(decodeErrors, [], 'the export of native files decodes cleanly');
  const exportPath = join(rec.workDir, 'jobs', `${done.job_id}.mp4`);
  for (const stream of ['v:0', 'a:0']) {
    const { stdout } = await run('ffprobe', ['-v', 'error', '-select_streams', stream, '-show_entries', 'packet=dts', '-of', 'csv=p=0', exportPath]);
    const dts = stdout.split('\n').filter((l) => l.trim() !== '').map(Number);
    assert.ok(dts.length > 0, `the export has a ${stream} track`);
    const back = dts.findIndex((d, i) => i > 0 && !(d > (dts[i - 1] as number)));
    assert.equal(back, -1, `the export's ${stream} timestamps strictly increase (packet ${back}: ${dts[back - 1]} then ${dts[back]})`);
    // The window spans several 2 s files: where one file ends and the next begins, the pictures (and audio frames)
    // follow on at the camera's pace, with no gap (each file of a camera with audio starts with the audio that plays
    // before its first picture, which once pushed the next file ~60 ms later).
    const steps = dts.slice(1).map((d, i) => d - (dts[i] as number));
    const usual = [...steps].sort((a, b) => a - b)[Math.floor(steps.length / 2)] as number;
    const gaps = steps.map((step, i) => ({ packet: i + 1, step })).filter((g) => g.step > usual * 1.5);
    assert.deepEqual(gaps, [], `the export's ${stream} has no gap between files (usual step ${usual})`);
  }
  assert.ok(exported.playSeconds >= 2, `the export holds the window (${exported.playSeconds} s)`);

  // The passwords are in no command line: native ingest runs no process per camera.
  // The test's own cameras are told their passwords on their command lines; every other process is looked at.
  const argv = (await allCommandLines()).filter((a) => !a.includes('fixtures/rtsp_camera.py'));
  assert.ok(argv.some((a) => a.includes('ffmpeg')), 'the ffmpeg twins are seen, so the scan works');
  for (const secret of [DIGEST_PASSWORD, BASIC_PASSWORD]) assert.deepEqual(argv.filter((a) => a.includes(secret)), [], 'no process argv carries a camera password');
  await rec.stop();
  for (const secret of [DIGEST_PASSWORD, BASIC_PASSWORD]) assert.equal(rec.output().includes(secret), false, 'nor does any log line');
});
