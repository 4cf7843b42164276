// Tests for the RTSP camera fixture wrapper: live and looped-file sources, digest/basic auth, stop/start on one port.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeLoopFile, startRtspCamera, type RtspCamera } from '../src/rtsp-camera.js';
import { runCommand, type CommandResult } from '../src/command.js';

type RunResult = CommandResult;

function run(cmd: string, args: string[], timeoutMs = 20_000): Promise<RunResult> {
  return runCommand(cmd, args, { timeoutMs });
}

interface ProbedStream {
  codec_name?: string;
  width?: number;
  height?: number;
}

async function probeRtsp(url: string): Promise<RunResult & { stream: ProbedStream | undefined }> {
  const result = await run('ffprobe', [
    '-hide_banner', '-v', 'error', '-rtsp_transport', 'tcp',
    '-select_streams', 'v:0', '-show_entries', 'stream=codec_name,width,height', '-of', 'json', url,
  ]);
  let stream: ProbedStream | undefined;
  if (result.code === 0) {
    const parsed = JSON.parse(result.stdout) as { streams?: ProbedStream[] };
    stream = parsed.streams?.[0];
  }
  return { ...result, stream };
}

async function assertServesH264(camera: RtspCamera, url: string, width: number, height: number): Promise<void> {
  const probe = await probeRtsp(url);
  assert.equal(probe.code, 0, `ffprobe ${camera.url} failed: ${probe.stderr}`);
  assert.deepEqual(probe.stream, { codec_name: 'h264', width, height });
}

test('live camera without auth serves H.264 at the requested size', async (t) => {
  const camera = await startRtspCamera({ width: 320, height: 240, fps: 15, gop: 15, bitrateKbps: 300 });
  t.after(() => camera.stop());
  assert.match(camera.url, new RegExp(`^rtsp://127\\.0\\.0\\.1:${camera.port}/cam$`));
  assert.ok(camera.pid !== undefined && camera.pid > 0);
  await assertServesH264(camera, camera.url, 320, 240);
});

for (const auth of ['digest', 'basic'] as const) {
  test(`${auth} auth: refused without or with wrong credentials, served with the right ones`, async (t) => {
    const camera = await startRtspCamera({ auth, user: 'vigil', password: 'p@ss/w:rd', width: 320, height: 240 });
    t.after(() => camera.stop());
    assert.ok(!camera.url.includes('@'), 'url carries no credentials');
    assert.equal(camera.urlWithCredentials(), `rtsp://vigil:p%40ss%2Fw%3Ard@127.0.0.1:${camera.port}/cam`);

    const anonymous = await probeRtsp(camera.url);
    assert.notEqual(anonymous.code, 0);
    assert.match(anonymous.stderr, /401/);

    const wrong = await probeRtsp(camera.urlWithCredentials('vigil', 'nope'));
    assert.notEqual(wrong.code, 0);
    assert.match(wrong.stderr, /401/);

    await assertServesH264(camera, camera.urlWithCredentials(), 320, 240);
  });
}

test('file source loops a 2 s file into a continuous recording longer than 5 s', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'vigil-rtsp-camera-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const loopFile = join(dir, 'loop.h264');
  await encodeLoopFile(loopFile, { width: 320, height: 240, fps: 25, gop: 25, bitrateKbps: 400, seconds: 2 });

  const frames = await run('ffprobe', [
    '-v', 'error', '-count_frames', '-select_streams', 'v:0',
    '-show_entries', 'stream=nb_read_frames', '-of', 'csv=p=0', loopFile,
  ]);
  assert.equal(frames.code, 0, frames.stderr);
  assert.equal(Number(frames.stdout.trim()), 50, 'loop file holds exactly 2 s of 25 fps video');

  const camera = await startRtspCamera({ source: 'file', file: loopFile, width: 320, height: 240, fps: 25, gop: 25 });
  t.after(() => camera.stop());

  const recording = join(dir, 'rec.mp4');
  const record = await run('ffmpeg', [
    '-hide_banner', '-nostdin', '-v', 'error', '-y',
    '-rtsp_transport', 'tcp', '-i', camera.url, '-t', '6', '-c', 'copy', '-f', 'mp4', recording,
  ]);
  assert.equal(record.code, 0, record.stderr);

  const duration = await run('ffprobe', ['-v', 'error', '-show_entries', 'format=duration', '-of', 'csv=p=0', recording]);
  assert.equal(duration.code, 0, duration.stderr);
  assert.ok(Number(duration.stdout.trim()) >= 5, `recorded ${duration.stdout.trim()} s`);

  // Timestamps keep increasing across the loop boundaries (at 2 s and 4 s).
  const packets = await run('ffprobe', [
    '-v', 'error', '-select_streams', 'v:0', '-show_entries', 'packet=dts_time', '-of', 'csv=p=0', recording,
  ]);
  assert.equal(packets.code, 0, packets.stderr);
  const dts = packets.stdout.trim().split('\n').map(Number);
  assert.ok(dts.length >= 125, `only ${dts.length} packets`);
  for (let i = 1; i < dts.length; i++) {
    const prev = dts[i - 1] ?? 0;
    const cur = dts[i] ?? 0;
    assert.ok(cur > prev && cur - prev < 0.2, `packet ${i}: dts ${prev} -> ${cur}`);
  }
});

test('stop() then start() serves again on the same port', async (t) => {
  const camera = await startRtspCamera({ width: 320, height: 240 });
  t.after(() => camera.stop());
  const port = camera.port;
  await assertServesH264(camera, camera.url, 320, 240);

  const firstPid = camera.pid;
  assert.ok(firstPid !== undefined);
  await Promise.all([camera.stop(), camera.stop()]);
  await camera.stop();
  assert.equal(camera.pid, undefined);
  assert.throws(() => process.kill(firstPid, 0), { code: 'ESRCH' }, 'fixture process is gone');
  const refused = await probeRtsp(camera.url);
  assert.notEqual(refused.code, 0);

  await camera.start();
  assert.equal(camera.port, port);
  assert.notEqual(camera.pid, firstPid);
  await assertServesH264(camera, camera.url, 320, 240);
});
