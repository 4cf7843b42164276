// H.264 SPS parsing and avcC building against libx264 output, plus the RBSP bit reader underneath.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { BitReader, BitstreamError, unescapeRbsp } from '../../src/media/bit-reader.js';
import { avcCodecString } from '../../src/media/codec-string.js';
import { buildInitSegment } from '../../src/media/fmp4-init-writer.js';
import { buildAvcC, parseH264Sps } from '../../src/media/h264-sps.js';
import { parseInitSegment } from '../../src/media/init-parser.js';
import { encodeAnnexB, groupAccessUnits, remuxWithTrace, splitAnnexB } from './annexb.js';
import { tempDir } from './fixtures.js';

test('bit reader: emulation prevention, u(n), ue(v), se(v)', () => {
  assert.deepEqual([...unescapeRbsp(Buffer.from([0, 0, 3, 1, 0, 0, 3, 0, 0, 3]))], [0, 0, 1, 0, 0, 0, 0]);
  assert.deepEqual([...unescapeRbsp(Buffer.from([0, 0, 3, 0, 0, 3]))], [0, 0, 0, 0]);
  const plain = Buffer.from([1, 2, 3]);
  assert.equal(unescapeRbsp(plain), plain, 'no copy without emulation prevention');
  // 1 | 010 | 011 | 00100 | 00101 | 0001000 -> ue 0, 1, 2, 3, 4, 7; then se from 00111 (ue 6 -> -3)
  const r = new BitReader(Buffer.from([0b10100110, 0b01000010, 0b10001000, 0b00111000]));
  assert.deepEqual([r.ue(), r.ue(), r.ue(), r.ue(), r.ue(), r.ue()], [0, 1, 2, 3, 4, 7]);
  assert.equal(r.se(), -3);
  assert.equal(r.bitsLeft, 3);
  assert.throws(() => r.u(4), BitstreamError);
  const w = new BitReader(Buffer.from([0xff, 0xff, 0xff, 0xfe, 0x80]), 0);
  assert.equal(w.u(32), 0xfffffffe);
  assert.equal(w.se(), 0);
  // An escaped 00 00 03 01 reads as 00 00 01 after a skipped header byte.
  const e = new BitReader(Buffer.from([0x67, 0, 0, 3, 1]), 1);
  assert.equal(e.u(24), 1);
  assert.throws(() => new BitReader(Buffer.from([0, 0, 0, 0, 0, 0x80])).ue(), BitstreamError);
});

interface Variant {
  name: string;
  size: string;
  args: string[];
  pixFmt?: string;
  /** Expected sample aspect ratio when not 1:1. */
  sar?: { width: number; height: number };
  profileIdc: number;
  chromaFormatIdc: number;
  bitDepth: number;
  frameMbsOnly: boolean;
}

const VARIANTS: Variant[] = [
  { name: 'baseline', size: '640x360', args: ['-profile:v', 'baseline'], profileIdc: 66, chromaFormatIdc: 1, bitDepth: 8, frameMbsOnly: true },
  {
    name: 'main-sar', size: '640x360', args: ['-profile:v', 'main', '-vf', 'setsar=4/3'], sar: { width: 4, height: 3 }, profileIdc: 77,
    chromaFormatIdc: 1, bitDepth: 8, frameMbsOnly: true,
  },
  { name: 'high-cropped', size: '1918x1078', args: ['-profile:v', 'high'], profileIdc: 100, chromaFormatIdc: 1, bitDepth: 8, frameMbsOnly: true },
  // Interlaced: field macroblock pairs double the crop unit; jvt matrices put scaling lists in the SPS.
  {
    name: 'high-interlaced-cqm', size: '1918x1076', args: ['-profile:v', 'high', '-x264-params', 'interlaced=1:cqm=jvt'],
    profileIdc: 100, chromaFormatIdc: 1, bitDepth: 8, frameMbsOnly: false,
  },
  { name: 'high10', size: '638x358', args: [], pixFmt: 'yuv420p10le', profileIdc: 110, chromaFormatIdc: 1, bitDepth: 10, frameMbsOnly: true },
  { name: 'high422', size: '638x358', args: [], pixFmt: 'yuv422p', profileIdc: 122, chromaFormatIdc: 2, bitDepth: 8, frameMbsOnly: true },
  {
    name: 'high444-cqm', size: '637x357', args: ['-x264-params', 'cqm=jvt'], pixFmt: 'yuv444p',
    profileIdc: 244, chromaFormatIdc: 3, bitDepth: 8, frameMbsOnly: true,
  },
];

// Variants run side by side: each is a few short ffmpeg processes, mostly start-up time.
test('H.264 SPS from libx264 matches ffmpeg', { concurrency: 3 }, async (t) => {
  const dir = await tempDir(t);
  const runs = VARIANTS.map((v) =>
    t.test(v.name, async () => {
      const { path, data } = await encodeAnnexB(dir, `${v.name}.h264`, { codec: 'h264', size: v.size, frames: 1, args: v.args, pixFmt: v.pixFmt });
      const { params } = groupAccessUnits('h264', splitAnnexB(data));
      const sps = parseH264Sps(params.sps);
      const [width, height] = v.size.split('x').map(Number);
      assert.deepEqual([sps.width, sps.height], [width, height]);
      assert.equal(sps.profileIdc, v.profileIdc);
      assert.equal(sps.chromaFormatIdc, v.chromaFormatIdc);
      assert.equal(sps.bitDepthLuma, v.bitDepth);
      assert.equal(sps.bitDepthChroma, v.bitDepth);
      assert.equal(sps.frameMbsOnly, v.frameMbsOnly);
      assert.deepEqual(sps.sar, v.sar ?? { width: 1, height: 1 }); // x264 always writes one

      const names = ['level_idc', 'constraint_set1_flag', 'num_units_in_tick', 'time_scale', 'max_num_reorder_frames'];
      const { mp4, fields: trace } = await remuxWithTrace(path, join(dir, `${v.name}.mp4`), names);
      const ffmpegTrack = parseInitSegment(mp4).video;
      assert.deepEqual([ffmpegTrack?.width, ffmpegTrack?.height], [width, height]);
      assert.equal(sps.levelIdc, trace.get('level_idc'));
      assert.equal((sps.constraintFlags >> 6) & 1, trace.get('constraint_set1_flag'));
      assert.equal(sps.timing?.numUnitsInTick, trace.get('num_units_in_tick'));
      assert.equal(sps.timing?.timeScale, trace.get('time_scale'));
      assert.equal(sps.maxNumReorderFrames, trace.get('max_num_reorder_frames'));

      const avcC = buildAvcC(params.sps, params.pps);
      assert.equal(avcCodecString(avcC), ffmpegTrack?.codec);
      // The init segment carries the same pasp box as ffmpeg's mp4 (4:3 pixels for main-sar).
      const init = buildInitSegment({ video: { codec: 'h264', sps: params.sps, pps: params.pps } });
      const pasp = (b: Buffer): string | undefined => {
        const at = b.indexOf('pasp', 0, 'latin1');
        return at < 0 ? undefined : b.subarray(at - 4, at + 12).toString('hex');
      };
      assert.equal(pasp(init.data), pasp(mp4));
      const sar = v.sar ?? { width: 1, height: 1 };
      assert.equal(pasp(init.data), `0000001070617370${sar.width.toString(16).padStart(8, '0')}${sar.height.toString(16).padStart(8, '0')}`);
      const hasExtension = [100, 110, 122, 244].includes(v.profileIdc);
      assert.equal(avcC.length, 6 + 2 + params.sps.length + 1 + params.pps.reduce((s, p) => s + 2 + p.length, 0) + (hasExtension ? 4 : 0));
      if (hasExtension) {
        assert.deepEqual([...avcC.subarray(avcC.length - 4)], [0xfc | v.chromaFormatIdc, 0xf8 | (v.bitDepth - 8), 0xf8 | (v.bitDepth - 8), 0]);
      }
    }),
  );
  await Promise.all(runs);
});

test('H.264 SPS: baseline codec string and malformed input', async (t) => {
  const dir = await tempDir(t);
  const { data } = await encodeAnnexB(dir, 'b.h264', { codec: 'h264', size: '640x360', frames: 1, args: ['-profile:v', 'baseline', '-level', '3.0'] });
  const { params } = groupAccessUnits('h264', splitAnnexB(data));
  const avcC = buildAvcC(params.sps, params.pps);
  assert.equal(avcCodecString(avcC), 'avc1.42C01E');
  assert.equal(avcC.readUInt8(4), 0xff, 'lengthSizeMinusOne 3');
  assert.equal(avcC.readUInt8(5), 0xe1, 'one SPS');
  assert.ok(avcC.subarray(8, 8 + params.sps.length).equals(params.sps));

  assert.throws(() => parseH264Sps(params.pps[0] ?? Buffer.alloc(0)), BitstreamError);
  assert.throws(() => parseH264Sps(params.sps.subarray(0, 6)), BitstreamError);
  assert.throws(() => buildAvcC(params.sps, []), RangeError);
  // A truncated VUI loses only the VUI fields.
  const full = parseH264Sps(params.sps);
  const cut = parseH264Sps(params.sps.subarray(0, params.sps.length - 6));
  assert.deepEqual([cut.width, cut.height, cut.profileIdc], [full.width, full.height, full.profileIdc]);
  // Baseline has no B-frames whatever the VUI says.
  assert.equal(cut.maxNumReorderFrames, 0);
});
