// Picture order counts of H.264 (types 0, 1, 2) and H.265 streams: the order they give is the order the encoder meant to present.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { H264PictureOrderCounter } from '../../src/media/h264-picture-order.js';
import { H265PictureOrderCounter } from '../../src/media/h265-picture-order.js';
import type { PictureOrder } from '../../src/media/picture-order.js';
import { groupAccessUnits, splitAnnexB, type VideoCodec } from './annexb.js';
import { run, tempDir } from './fixtures.js';

/**
 * Encodes `frames` of testsrc2 into an MP4 (which keeps each picture's presentation time), then copies the same pictures
 * out as Annex-B: the pictures in decoding order, and their presentation times.
 */
async function encode(dir: string, codec: VideoCodec, args: string[], frames = 60): Promise<{ nals: Buffer[]; pts: number[] }> {
  const mp4 = join(dir, `${codec}.mp4`);
  const raw = join(dir, `${codec}.${codec}`);
  await run('ffmpeg', ['-v', 'error', '-y', '-f', 'lavfi', '-i', 'testsrc2=size=320x180:rate=25', '-frames:v', String(frames), '-c:v', codec === 'h264' ? 'libx264' : 'libx265', ...args, mp4]);
  await run('ffmpeg', ['-v', 'error', '-y', '-i', mp4, '-c:v', 'copy', '-bsf:v', codec === 'h264' ? 'h264_mp4toannexb' : 'hevc_mp4toannexb', '-f', codec === 'h264' ? 'h264' : 'hevc', raw]);
  const { stdout } = await run('ffprobe', ['-v', 'error', '-select_streams', 'v:0', '-show_entries', 'packet=pts', '-of', 'csv=p=0', mp4]);
  return { nals: splitAnnexB(await readFile(raw)), pts: stdout.split('\n').filter((l) => l.trim() !== '').map(Number) };
}

/** The POC of every access unit, in decoding order. */
function orders(codec: VideoCodec, nals: Buffer[]): Array<PictureOrder | undefined> {
  const { params, units } = groupAccessUnits(codec, nals);
  const counter = codec === 'h264' ? new H264PictureOrderCounter() : new H265PictureOrderCounter();
  counter.setParameterSets(params.sps, params.pps);
  return units.map((u) => counter.next(u.nalus));
}

/** Within each coded video sequence, the decoding-order indices sorted by a key. */
function presentationOrder(keys: number[], resets: boolean[]): number[] {
  const out: number[] = [];
  let start = 0;
  for (let i = 1; i <= keys.length; i++) {
    if (i === keys.length || resets[i] === true) {
      const slice = keys.slice(start, i).map((k, j) => [k, start + j] as const);
      out.push(...slice.sort((a, b) => a[0] - b[0]).map(([, j]) => j));
      start = i;
    }
  }
  return out;
}

const cases: Array<{ name: string; codec: VideoCodec; args: string[]; frames?: number; reordered: boolean }> = [
  { name: 'H.264 High, 2 B-frames (POC type 0)', codec: 'h264', args: ['-profile:v', 'high', '-bf', '2', '-b_strategy', '0', '-x264-params', 'b-pyramid=none', '-g', '25'], reordered: true },
  { name: 'H.264 High, 3 B-frames in a pyramid, GOP 12', codec: 'h264', args: ['-profile:v', 'high', '-bf', '3', '-b_strategy', '0', '-x264-params', 'b-pyramid=normal', '-g', '12'], reordered: true },
  { name: 'H.264 Main without B-frames (x264 uses POC type 2)', codec: 'h264', args: ['-profile:v', 'main', '-bf', '0', '-g', '25'], reordered: false },
  { name: 'H.265, 4 B-frames, closed GOP (IDR, RADL)', codec: 'h265', args: ['-x265-params', 'bframes=4:keyint=20:min-keyint=20:open-gop=0:log-level=error'], reordered: true },
  { name: 'H.265, 3 B-frames, open GOP (CRA, RASL)', codec: 'h265', args: ['-x265-params', 'bframes=3:keyint=20:min-keyint=20:open-gop=1:scenecut=0:log-level=error'], reordered: true },
  // GOPs longer than half the POC lsb range: the high part of the count must carry across the lsb's wrap.
  { name: 'H.264, 2 B-frames, one 200-picture GOP (the POC lsb wraps)', codec: 'h264', args: ['-preset', 'veryfast', '-bf', '2', '-g', '1000', '-sc_threshold', '0'], frames: 200, reordered: true },
  { name: 'H.265, 2 B-frames, one 300-picture GOP (the POC lsb wraps)', codec: 'h265', args: ['-preset', 'ultrafast', '-x265-params', 'bframes=2:keyint=1000:scenecut=0:log-level=error'], frames: 300, reordered: true },
];

for (const c of cases) {
  test(`${c.name}: the POCs order the pictures as their presentation times do`, async (t) => {
    const { nals, pts } = await encode(await tempDir(t), c.codec, c.args, c.frames);
    const got = orders(c.codec, nals);
    assert.equal(got.length, pts.length, 'one POC per picture');
    assert.ok(got.every((o) => o !== undefined), 'every slice header was read');
    const pocs = got.map((o) => (o as PictureOrder).poc);
    const resets = got.map((o) => (o as PictureOrder).reset);
    assert.equal(resets[0], true, 'the stream starts a coded video sequence');
    assert.deepEqual(presentationOrder(pocs, resets), presentationOrder(pts, resets));
    const outOfOrder = pts.some((p, i) => i > 0 && p < (pts[i - 1] as number));
    assert.equal(outOfOrder, c.reordered, c.reordered ? 'the stream really reorders pictures' : 'nothing to reorder');
    if (c.frames !== undefined) assert.ok(Math.max(...pocs) > 256, `the count passed the 8-bit lsb range x265 uses (x264: 6 bits) (${Math.max(...pocs)})`);
  });
}

/** Writes fields MSB first, with ue(v)/se(v) codes, then rbsp_trailing_bits. */
function rbsp(fields: Array<[kind: 'u', value: number, width: number] | [kind: 'ue' | 'se', value: number]>): Buffer {
  const bits: number[] = [];
  const put = (value: number, width: number): void => {
    for (let i = width - 1; i >= 0; i--) bits.push(Math.floor(value / 2 ** i) % 2);
  };
  for (const f of fields) {
    if (f[0] === 'u') put(f[1], f[2]);
    else {
      const code = f[0] === 'ue' ? f[1] : f[1] > 0 ? 2 * f[1] - 1 : -2 * f[1];
      const length = Math.floor(Math.log2(code + 1));
      put(0, length);
      put(code + 1, length + 1);
    }
  }
  bits.push(1);
  while (bits.length % 8 !== 0) bits.push(0);
  const out = Buffer.alloc(bits.length / 8);
  bits.forEach((b, i) => (out[i >> 3]! |= b << (7 - (i & 7))));
  return out;
}

test('H.264 POC type 1: the expected count from frame_num and the reference-frame cycle, non-reference pictures offset', () => {
  // Main profile SPS, level 3: log2_max_frame_num 4, POC type 1 with offset_for_non_ref_pic -2, a cycle of one offset +4.
  const sps = Buffer.concat([Buffer.from([0x67, 77, 0, 30]), rbsp([
    ['ue', 0], ['ue', 0], ['ue', 1], ['u', 0, 1], ['se', -2], ['se', 0], ['ue', 1], ['se', 4],
    ['ue', 2], ['u', 0, 1], ['ue', 19], ['ue', 10], ['u', 1, 1], ['u', 1, 1], ['u', 0, 1], ['u', 0, 1],
  ])]);
  const pps = Buffer.concat([Buffer.from([0x68]), rbsp([['ue', 0], ['ue', 0], ['u', 0, 1], ['u', 0, 1], ['ue', 0], ['ue', 0], ['ue', 0], ['u', 0, 1], ['u', 0, 2], ['se', 0], ['se', 0], ['se', 0], ['u', 0, 1], ['u', 0, 1], ['u', 0, 1]])]);
  // A slice header up to the POC fields: first_mb 0, slice_type, pps 0, frame_num (4 bits), [idr_pic_id], delta_pic_order_cnt[0].
  const slice = (idr: boolean, reference: boolean, frameNum: number, delta: number): Buffer =>
    Buffer.concat([Buffer.from([(reference ? 0x60 : 0) | (idr ? 5 : 1)]), rbsp([['ue', 0], ['ue', idr ? 7 : 5], ['ue', 0], ['u', frameNum, 4], ...(idr ? [['ue', 0] as ['ue', number]] : []), ['se', delta]])]);
  const counter = new H264PictureOrderCounter();
  counter.setParameterSets(sps, [pps]);
  // I P b P b with frame_num 0 1 2 2 3 (a non-reference picture does not advance frame_num after it), then the frame
  // numbers wrap past 16: FrameNumOffset grows by 16.
  const got = [
    counter.next([slice(true, true, 0, 0)]),
    counter.next([slice(false, true, 1, 0)]),
    counter.next([slice(false, false, 2, 0)]),
    counter.next([slice(false, true, 2, 0)]),
    counter.next([slice(false, true, 15, 0)]),
    counter.next([slice(false, true, 0, 1)]),
  ].map((o) => o?.poc);
  // absFrameNum 0 → 0; 1 → 4; 2 non-ref → absFrameNum 1 → 4 − 2 = 2; 2 → 8; 15 → 60; 0 after the wrap: 16 → 64, + delta 1.
  assert.deepEqual(got, [0, 4, 2, 8, 60, 65]);
});

test('H.264: a slice header that cannot be read, or names an unknown PPS, gives no order and breaks nothing', () => {
  const counter = new H264PictureOrderCounter();
  assert.equal(counter.next([Buffer.from([0x65, 0x88])]), undefined, 'no parameter sets yet');
  counter.setParameterSets(Buffer.from('6742c00cd901419f9f011000000300100000030320f142a480', 'hex'), [Buffer.from('68cb83cb20', 'hex')]);
  assert.equal(counter.next([Buffer.from([0x65])]), undefined, 'a cut-off slice');
  assert.equal(counter.next([Buffer.from([0x06, 0x05, 0x01])]), undefined, 'no slice at all');
});
