// Real MP4A-LATM from the two senders we know: GStreamer's rtpmp4apay and ffmpeg's RTP muxer (-rtpflags latm), through the depacketizer.
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { once } from 'node:events';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { promisify } from 'node:util';
import { tempDir } from '@vigil/testing/temp-dir';
import type { AudioAccessUnit } from '../../src/rtp/access-unit.js';
import { createDepacketizer } from '../../src/rtp/depacketizer-factory.js';
import { feed, splitRtpStream } from './rtp-builder.js';

const execFileP = promisify(execFile);

function depacketize(fmtp: Record<string, string>, packets: Buffer[]): { frames: AudioAccessUnit[]; d: ReturnType<typeof createDepacketizer> } {
  const frames: AudioAccessUnit[] = [];
  const d = createDepacketizer('MP4A-LATM', 48000, fmtp, (u) => frames.push(u as AudioAccessUnit));
  feed(d, packets);
  return { frames, d };
}

/** Steps between consecutive frames' timestamps. */
const steps = (frames: AudioAccessUnit[]): number[] => frames.slice(1).map((f, i) => (f.rtpTimestamp - (frames[i] as AudioAccessUnit).rtpTimestamp) >>> 0);

/** The frames written back as ADTS and decoded by ffmpeg: how many AAC frames it decodes without an error. */
async function decodedFrames(t: TestContext, asc: Buffer, frames: AudioAccessUnit[]): Promise<{ count: number; errors: string }> {
  const file = join(await tempDir(t, 'vigil-latm-'), 'out.aac');
  const objectType = (asc[0] ?? 0) >> 3;
  const frequencyIndex = (((asc[0] ?? 0) & 7) << 1) | ((asc[1] ?? 0) >> 7);
  const channels = ((asc[1] ?? 0) >> 3) & 0xf;
  const adts = frames.map((f) => {
    const length = f.data.length + 7;
    const header = Buffer.from([0xff, 0xf1, ((objectType - 1) << 6) | (frequencyIndex << 2) | (channels >> 2), ((channels & 3) << 6) | (length >> 11), (length >> 3) & 0xff, ((length & 7) << 5) | 0x1f, 0xfc]);
    return Buffer.concat([header, f.data]);
  });
  await writeFile(file, Buffer.concat(adts));
  const { stdout, stderr } = await execFileP('ffprobe', ['-v', 'error', '-count_frames', '-show_entries', 'stream=nb_read_frames', '-of', 'csv=p=0', file]);
  return { count: Number(stdout.trim()), errors: stderr.trim() };
}

test('GStreamer rtpmp4apay (voaacenc, 48 kHz mono): every frame, 1024 ticks apart, decodable', async (t) => {
  const file = join(await tempDir(t, 'vigil-rtp-'), 'out.rtpstream');
  const pipeline = `audiotestsrc num-buffers=40 ! audio/x-raw,rate=48000,channels=1 ! voaacenc bitrate=64000 ! rtpmp4apay pt=97 ! rtpstreampay ! filesink location=${file}`;
  const { stdout } = await execFileP('gst-launch-1.0', ['-v', ...pipeline.split(' ')], { timeout: 20_000 });
  const caps = stdout.split('\n').find((line) => line.includes('GstRtpMP4APay') && line.includes('MP4A-LATM')) ?? '';
  const config = /config=\(string\)([0-9a-f]+)/.exec(caps)?.[1];
  const cpresent = /cpresent=\(string\)(\d)/.exec(caps)?.[1];
  assert.ok(config !== undefined && cpresent !== undefined, caps);
  const { frames, d } = depacketize({ cpresent, config }, splitRtpStream(await readFile(file)));
  // 40 buffers of 1024 samples; an encoder may hold one back or drain one more.
  assert.ok(frames.length >= 39 && frames.length <= 41, `${frames.length} frames`);
  // GStreamer derives the timestamps from nanosecond buffer times: 1024 samples at 48 kHz round to ±1 tick.
  for (const step of steps(frames)) assert.ok(Math.abs(step - 1024) <= 1, `step ${step}`);
  assert.equal(d.kind, 'audio');
  if (d.kind === 'audio') {
    assert.deepEqual([d.config.objectType, d.config.sampleRate, d.config.channels], [2, 48000, 1]);
    const decoded = await decodedFrames(t, d.config.audioSpecificConfig, frames);
    assert.deepEqual(decoded, { count: frames.length, errors: '' }, 'ffmpeg decodes every frame');
  }
  assert.equal(d.stats.droppedUnits + d.stats.malformedPackets + d.stats.lostPackets, 0);
});

test('ffmpeg -f rtp -rtpflags latm (AAC 44.1 kHz stereo, over UDP): every frame, 1024 ticks apart, decodable', async (t) => {
  const dir = await tempDir(t, 'vigil-latm-');
  const socket = createSocket('udp4');
  t.after(() => socket.close());
  const packets: Buffer[] = [];
  socket.on('message', (msg) => packets.push(Buffer.from(msg)));
  socket.bind(0, '127.0.0.1');
  await once(socket, 'listening');
  const port = socket.address().port;
  const sdpFile = join(dir, 'stream.sdp');
  // 2 s of a sine, sent at its pace (-re) so the loopback socket never overflows.
  const ffmpeg = spawn('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-re', '-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=44100', '-ac', '2', '-t', '2', '-c:a', 'aac', '-b:a', '96k',
    '-f', 'rtp', '-rtpflags', 'latm', '-sdp_file', sdpFile, `rtp://127.0.0.1:${port}?rtcpport=${port}`], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  ffmpeg.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const [code] = (await once(ffmpeg, 'exit')) as [number | null];
  assert.equal(code, 0, stderr);
  await new Promise((r) => setTimeout(r, 100));
  const sdp = await readFile(sdpFile, 'utf8');
  assert.match(sdp, /a=rtpmap:\d+ MP4A-LATM\/44100\/2/);
  const fmtp = Object.fromEntries((/a=fmtp:\d+ (.*)/.exec(sdp)?.[1] ?? '').trim().split(';').map((kv) => kv.trim().split('=') as [string, string]));
  // RTCP shares the port here (rtcpport): only RTP (payload types 96–127) is the track's.
  const rtp = packets.filter((p) => ((p[1] ?? 0) & 0x7f) >= 96);
  const frames: AudioAccessUnit[] = [];
  const d = createDepacketizer('MP4A-LATM', 44100, fmtp, (u) => frames.push(u as AudioAccessUnit));
  feed(d, rtp);
  // 2 s at 44.1 kHz is 86 frames of 1024 samples (ffmpeg's encoder priming adds one or two).
  assert.ok(frames.length >= 86 && frames.length <= 89, `${frames.length} frames`);
  for (const step of steps(frames)) assert.equal(step, 1024);
  if (d.kind === 'audio') {
    assert.deepEqual([d.config.objectType, d.config.sampleRate, d.config.channels], [2, 44100, 2]);
    const decoded = await decodedFrames(t, d.config.audioSpecificConfig, frames);
    assert.deepEqual(decoded, { count: frames.length, errors: '' }, 'ffmpeg decodes every frame');
  }
  assert.equal(d.stats.droppedUnits + d.stats.malformedPackets + d.stats.lostPackets, 0);
});
