// Tests for the RTSP camera fixture's codec options (H.264 profiles and B-frames, H.265 with and without B-frames, AAC, LATM and PCMU audio), as ffprobe sees them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startRtspCamera, type RtspCameraOptions } from '../src/rtsp-camera.js';
import { runCommand, type CommandResult } from '../src/command.js';

type RunResult = CommandResult;

function run(cmd: string, args: string[], timeoutMs = 20_000): Promise<RunResult> {
  return runCommand(cmd, args, { timeoutMs });
}

interface ProbedStream {
  codec_type?: string;
  codec_name?: string;
  profile?: string;
  width?: number;
  height?: number;
  has_b_frames?: number;
  sample_rate?: string;
  channels?: number;
}

interface Probe {
  video: ProbedStream | undefined;
  audio: ProbedStream[];
  /** pict_type of the video frames decoded in the first 2 s. */
  pictTypes: string[];
}

/** One ffprobe over RTSP/TCP: the streams, and the picture types of the video frames of the first 2 s. */
async function probeCamera(url: string): Promise<Probe> {
  const result = await run('ffprobe', [
    '-hide_banner', '-v', 'error', '-rtsp_transport', 'tcp', '-read_intervals', '%+2',
    '-show_entries', 'stream=codec_type,codec_name,profile,width,height,has_b_frames,sample_rate,channels:frame=media_type,pict_type',
    '-of', 'json', url,
  ]);
  assert.equal(result.code, 0, `ffprobe ${url} failed: ${result.stderr}`);
  const parsed = JSON.parse(result.stdout) as { streams?: ProbedStream[]; frames?: Array<{ media_type?: string; pict_type?: string }> };
  const streams = parsed.streams ?? [];
  return {
    video: streams.find((s) => s.codec_type === 'video'),
    audio: streams.filter((s) => s.codec_type === 'audio'),
    pictTypes: (parsed.frames ?? []).filter((f) => f.media_type === 'video').map((f) => f.pict_type ?? '?'),
  };
}

interface Expected {
  codec: 'h264' | 'hevc';
  profile: string;
  bFrames: boolean;
  audio?: { codec: string; sampleRate: number };
}

const SMALL = { width: 320, height: 180, fps: 25, gop: 25, bitrateKbps: 500 } as const;

const cases: Array<{ name: string; options: RtspCameraOptions; expected: Expected }> = [
  { name: 'defaults: H.264 constrained baseline, no B-frames, no audio', options: {}, expected: { codec: 'h264', profile: 'Constrained Baseline', bFrames: false } },
  { name: 'H.264 main profile', options: { profile: 'main' }, expected: { codec: 'h264', profile: 'Main', bFrames: false } },
  { name: 'H.264 high profile', options: { profile: 'high' }, expected: { codec: 'h264', profile: 'High', bFrames: false } },
  { name: 'H.264 with 2 B-frames (main profile implied)', options: { bframes: 2 }, expected: { codec: 'h264', profile: 'Main', bFrames: true } },
  { name: 'H.264 high profile with 3 B-frames', options: { profile: 'high', bframes: 3 }, expected: { codec: 'h264', profile: 'High', bFrames: true } },
  { name: 'H.265 main', options: { codec: 'h265' }, expected: { codec: 'hevc', profile: 'Main', bFrames: false } },
  { name: 'H.265 main with 2 B-frames', options: { codec: 'h265', bframes: 2 }, expected: { codec: 'hevc', profile: 'Main', bFrames: true } },
  {
    name: 'H.264 with AAC audio as MP4A-LATM',
    options: { audio: 'latm' },
    expected: { codec: 'h264', profile: 'Constrained Baseline', bFrames: false, audio: { codec: 'aac', sampleRate: 48000 } },
  },
  {
    name: 'H.264 with AAC audio',
    options: { audio: 'aac' },
    expected: { codec: 'h264', profile: 'Constrained Baseline', bFrames: false, audio: { codec: 'aac', sampleRate: 48000 } },
  },
  {
    name: 'H.265 with PCMU audio',
    options: { codec: 'h265', audio: 'pcmu' },
    expected: { codec: 'hevc', profile: 'Main', bFrames: false, audio: { codec: 'pcm_mulaw', sampleRate: 8000 } },
  },
];

for (const { name, options, expected } of cases) {
  test(name, async (t) => {
    const camera = await startRtspCamera({ ...SMALL, ...options });
    t.after(() => camera.stop());
    const probe = await probeCamera(camera.url);

    assert.ok(probe.video !== undefined, 'a video stream');
    assert.equal(probe.video.codec_name, expected.codec);
    assert.equal(probe.video.profile, expected.profile);
    assert.equal(probe.video.width, SMALL.width);
    assert.equal(probe.video.height, SMALL.height);
    assert.ok(probe.pictTypes.length >= 25, `only ${probe.pictTypes.length} video frames in 2 s`);
    assert.ok(probe.pictTypes.includes('I'), `an I-frame among ${probe.pictTypes.join('')}`);
    if (expected.bFrames) {
      assert.ok((probe.video.has_b_frames ?? 0) > 0, 'has_b_frames > 0');
      assert.ok(probe.pictTypes.includes('B'), `B-frames among ${probe.pictTypes.join('')}`);
    } else {
      assert.equal(probe.video.has_b_frames, 0);
      assert.ok(!probe.pictTypes.includes('B'), `no B-frames among ${probe.pictTypes.join('')}`);
    }

    if (expected.audio === undefined) {
      assert.deepEqual(probe.audio, [], 'no audio stream');
    } else {
      assert.equal(probe.audio.length, 1, 'one audio stream');
      const [audio] = probe.audio;
      assert.equal(audio?.codec_name, expected.audio.codec);
      assert.equal(Number(audio?.sample_rate), expected.audio.sampleRate);
      assert.equal(audio?.channels, 1);
    }
  });
}

test('contradictory codec options are refused at start', async () => {
  await assert.rejects(startRtspCamera({ ...SMALL, codec: 'h265', profile: 'main' }), /--profile applies to --codec h264 only/);
  await assert.rejects(startRtspCamera({ ...SMALL, profile: 'baseline', bframes: 2 }), /--bframes needs --profile main or high/);
});

test('jitterMs: the RTP timestamps of pictures and audio frames step unevenly, still in order', async (t) => {
  const camera = await startRtspCamera({ ...SMALL, audio: 'aac', jitterMs: 12 });
  t.after(() => camera.stop());
  const result = await run('ffprobe', ['-v', 'error', '-rtsp_transport', 'tcp', '-read_intervals', '%+2', '-show_entries', 'packet=stream_index,pts', '-of', 'csv=p=0', camera.url]);
  assert.equal(result.code, 0, result.stderr);
  const rows = result.stdout.split('\n').filter((l) => l.trim() !== '').map((l) => l.split(',').map(Number) as [number, number]);
  for (const [index, frame] of [[0, 3600], [1, 1024]] as const) {
    const pts = rows.filter(([i]) => i === index).map(([, p]) => p).slice(1);
    const steps = pts.slice(1).map((p, i) => p - (pts[i] as number));
    assert.ok(steps.length > 20, `stream ${index}: ${steps.length} steps`);
    assert.ok(steps.every((s) => s > 0), `stream ${index}: in order (${steps.join(' ')})`);
    assert.ok(steps.filter((s) => Math.abs(s - frame) > frame / 20).length > steps.length / 3, `stream ${index}: uneven (${steps.join(' ')})`);
  }
});
