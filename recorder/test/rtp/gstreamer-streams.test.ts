// Real RTP from GStreamer's payloaders (x264/x265/voaac through rtph264pay, rtph265pay, rtpmp4gpay) through the depacketizers.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { promisify } from 'node:util';
import { tempDir } from '@vigil/testing/temp-dir';
import type { AccessUnit, AudioAccessUnit, VideoAccessUnit } from '../../src/rtp/access-unit.js';
import { createDepacketizer } from '../../src/rtp/depacketizer-factory.js';
import { RtpClock } from '../../src/rtp/rtp-clock.js';
import { keepUnit, splitRtpStream } from './rtp-builder.js';

const execFileP = promisify(execFile);

const VIDEO_SOURCE = 'videotestsrc num-buffers=50 ! video/x-raw,width=320,height=240,framerate=25/1';

async function gstAvailable(): Promise<boolean> {
  try {
    await execFileP('gst-inspect-1.0', ['rtpstreampay']);
    return true;
  } catch {
    return false;
  }
}

/** Runs a pipeline ending in `rtpstreampay ! filesink`; returns the RTP packets and the payloader's caps line. */
async function capture(t: TestContext, pipeline: string): Promise<{ packets: Buffer[]; caps: string }> {
  const file = join(await tempDir(t, 'vigil-rtp-'), 'out.rtpstream');
  const { stdout } = await execFileP('gst-launch-1.0', ['-v', ...`${pipeline} ! rtpstreampay ! filesink location=${file}`.split(' ')], { timeout: 20_000 });
  const caps = stdout.split('\n').find((line) => line.includes('GstRtpStreamPay') && line.includes('application/x-rtp')) ?? '';
  return { packets: splitRtpStream(await readFile(file)), caps };
}

function run(encoding: string, clockRate: number, fmtp: Record<string, string>, packets: Buffer[]): { units: AccessUnit[]; d: ReturnType<typeof createDepacketizer> } {
  const units: AccessUnit[] = [];
  const d = createDepacketizer(encoding, clockRate, fmtp, (u) => units.push(keepUnit(u)));
  const shared = Buffer.alloc(65536);
  packets.forEach((packet, i) => {
    packet.copy(shared);
    d.push(shared.subarray(0, packet.length), 1000 + i);
    shared.fill(0);
  });
  return { units, d };
}

const video = (units: AccessUnit[]): VideoAccessUnit[] => units.filter((u): u is VideoAccessUnit => u.kind === 'video');

test('GStreamer H.264 (rtph264pay, FU-A and STAP-A/in-band SPS+PPS): 50 whole pictures, 2 IDRs', async (t) => {
  if (!(await gstAvailable())) return t.skip('GStreamer with rtpstreampay is not installed');
  const { packets, caps } = await capture(t, `${VIDEO_SOURCE} ! x264enc key-int-max=25 ! rtph264pay mtu=600 config-interval=1 pt=96`);
  // As an SDP would carry them; the caps escape the commas and '=' with backslashes.
  const sprop = /sprop-parameter-sets=\(string\)"([^"]+)"/.exec(caps)?.[1]?.replaceAll('\\', '');
  assert.ok(sprop !== undefined, caps);
  const { units, d } = run('h264', 90000, { 'packetization-mode': '1', 'sprop-parameter-sets': sprop }, packets);
  const pictures = video(units);
  assert.equal(pictures.length, 50);
  assert.deepEqual(pictures.flatMap((u, i) => (u.keyframe ? [i] : [])), [0, 25]);
  for (const u of pictures) {
    const types = new Set(u.nalus.map((n) => (n[0] ?? 0) & 0x1f));
    for (const type of types) assert.ok([1, 5, 6].includes(type), `NAL type ${type}`);
    assert.equal(types.has(5), u.keyframe);
    assert.equal(u.bytes, u.nalus.reduce((sum, n) => sum + n.length, 0));
  }
  assert.equal(d.kind, 'video');
  if (d.kind === 'video') {
    assert.equal(d.parameterSetsVersion, 1, 'the in-band SPS/PPS are those of the SDP');
    assert.equal((d.parameterSets?.sps[0] ?? 0) & 0x1f, 7);
    assert.equal(d.parameterSets?.pps.length, 1);
  }
  assert.equal(d.stats.droppedUnits + d.stats.skippedUnits + d.stats.malformedPackets + d.stats.lostPackets, 0);
  assert.ok(packets.length > 100, `${packets.length} packets: the IDRs are fragmented at mtu=600`);
  return undefined;
});

test('GStreamer H.265 (rtph265pay, FU and AP): 50 whole pictures starting with an IRAP', async (t) => {
  if (!(await gstAvailable())) return t.skip('GStreamer with rtpstreampay is not installed');
  const { packets } = await capture(t, `${VIDEO_SOURCE} ! x265enc key-int-max=25 ! rtph265pay mtu=600 config-interval=1 pt=96`);
  const { units, d } = run('H265', 90000, {}, packets);
  const pictures = video(units);
  assert.equal(pictures.length, 50);
  const keyframes = pictures.flatMap((u, i) => (u.keyframe ? [i] : []));
  assert.equal(keyframes[0], 0);
  assert.equal(keyframes.length, 2, `keyframes at ${keyframes.join(',')}`);
  // x265 codes B-frames: units come in decoding order, their timestamps (presentation times) step back now and then.
  const clock = new RtpClock(90000);
  const ticks = pictures.map((u) => clock.extend(u.rtpTimestamp));
  assert.ok(clock.backwardSteps > 0);
  assert.equal(Math.max(...ticks) - Math.min(...ticks), 49 * 3600);
  for (const u of pictures) {
    const types = u.nalus.map((n) => ((n[0] ?? 0) >> 1) & 0x3f);
    for (const type of types) assert.ok(type <= 31 || type === 39 || type === 40, `NAL type ${type}`);
    assert.equal(types.some((type) => type >= 16 && type <= 21), u.keyframe);
  }
  if (d.kind === 'video') {
    const sets = d.parameterSets;
    assert.ok(sets?.vps !== undefined);
    assert.equal(((sets.vps[0] ?? 0) >> 1) & 0x3f, 32);
    assert.equal(((sets.sps[0] ?? 0) >> 1) & 0x3f, 33);
  }
  assert.equal(d.stats.droppedUnits + d.stats.skippedUnits + d.stats.malformedPackets + d.stats.lostPackets, 0);
  return undefined;
});

for (const [what, pay] of [
  ['one frame per packet', 'rtpmp4gpay pt=97'],
  ['each frame fragmented over 4 packets', 'rtpmp4gpay pt=97 mtu=120'],
] as const) {
  test(`GStreamer AAC (voaacenc, rtpmp4gpay AAC-hbr, ${what}): every frame, 1024 ticks apart, config from the caps`, async (t) => {
    if (!(await gstAvailable())) return t.skip('GStreamer with rtpstreampay is not installed');
    const { packets, caps } = await capture(t, `audiotestsrc num-buffers=20 ! audio/x-raw,rate=48000,channels=2 ! voaacenc ! ${pay}`);
    const config = /config=\(string\)([0-9a-f]+)/.exec(caps)?.[1];
    assert.ok(config !== undefined, caps);
    const fmtp = { mode: 'AAC-hbr', config, sizelength: '13', indexlength: '3', indexdeltalength: '3', streamtype: '5' };
    const { units, d } = run('mpeg4-generic', 48000, fmtp, packets);
    const frames = units.filter((u): u is AudioAccessUnit => u.kind === 'audio');
    // 20 buffers of 1024 samples; an encoder may hold one back or drain one more.
    assert.ok(frames.length >= 19 && frames.length <= 21, `${frames.length} frames`);
    frames.forEach((f, i) => {
      // GStreamer derives the timestamps from nanosecond buffer times: 1024 samples at 48 kHz round to ±1 tick.
      const step = i === 0 ? 1024 : (f.rtpTimestamp - (frames[i - 1]?.rtpTimestamp ?? 0)) >>> 0;
      assert.ok(Math.abs(step - 1024) <= 1, `frame ${i}: ${step} ticks after the previous one`);
      // A raw AAC frame (no ADTS sync word).
      assert.ok(f.data.length > 0 && f.data.readUInt16BE(0) >> 4 !== 0xfff);
    });
    if (pay.includes('mtu')) assert.ok(packets.length >= frames.length * 3, `${packets.length} packets`);
    if (d.kind === 'audio') assert.deepEqual([d.config.sampleRate, d.config.channels, d.config.objectType], [48000, 2, 2]);
    assert.equal(d.stats.droppedUnits + d.stats.malformedPackets + d.stats.lostPackets, 0);
    return undefined;
  });
}
