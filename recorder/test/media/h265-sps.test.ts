// H.265 SPS parsing and hvcC building against libx265 output (skipped when ffmpeg lacks libx265).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { BitstreamError } from '../../src/media/bit-reader.js';
import { hevcCodecString } from '../../src/media/codec-string.js';
import { buildHvcC, h265NalType, parseH265Sps } from '../../src/media/h265-sps.js';
import { parseInitSegment } from '../../src/media/init-parser.js';
import { encodeAnnexB, groupAccessUnits, remuxWithTrace, splitAnnexB } from './annexb.js';
import { hasEncoder, tempDir } from './fixtures.js';

const available = await hasEncoder('libx265');
const skip = available ? false : 'ffmpeg has no libx265 encoder';

interface Variant {
  name: string;
  size: string;
  args: string[];
  pixFmt?: string;
  /** general_profile_idc: 1 Main, 2 Main 10, 4 range extensions. */
  profileIdc: number;
  chromaFormatIdc: number;
  bitDepth: number;
  maxSubLayers: number;
}

const X265 = 'log-level=error';
const VARIANTS: Variant[] = [
  { name: 'main', size: '640x360', args: ['-x265-params', X265], profileIdc: 1, chromaFormatIdc: 1, bitDepth: 8, maxSubLayers: 1 },
  // Neither 958 nor 538 is a multiple of the 8-sample minimum coding block: the conformance window crops them.
  { name: 'main-cropped', size: '958x538', args: ['-x265-params', X265], profileIdc: 1, chromaFormatIdc: 1, bitDepth: 8, maxSubLayers: 1 },
  {
    name: 'main10', size: '638x358', args: ['-x265-params', X265], pixFmt: 'yuv420p10le',
    profileIdc: 2, chromaFormatIdc: 1, bitDepth: 10, maxSubLayers: 1,
  },
  // Range extensions: constraint flags beyond the first byte are set, and 4:4:4 crops in luma samples.
  { name: 'rext444', size: '637x357', args: ['-x265-params', X265], pixFmt: 'yuv444p', profileIdc: 4, chromaFormatIdc: 3, bitDepth: 8, maxSubLayers: 1 },
  // Temporal sub-layers exercise the sub-layer part of profile_tier_level.
  {
    name: 'temporal-layers', size: '320x240', args: ['-x265-params', `${X265}:temporal-layers=1:bframes=3`],
    profileIdc: 1, chromaFormatIdc: 1, bitDepth: 8, maxSubLayers: 2,
  },
];

// Variants run side by side: each is a few short ffmpeg processes, mostly start-up time.
test('H.265 SPS from libx265 matches ffmpeg', { skip, concurrency: 3 }, async (t) => {
  const dir = await tempDir(t);
  const runs = VARIANTS.map((v) =>
    t.test(v.name, async () => {
      const { path, data } = await encodeAnnexB(dir, `${v.name}.hevc`, {
        codec: 'h265', size: v.size, frames: 1, args: ['-preset', 'ultrafast', ...v.args], pixFmt: v.pixFmt,
      });
      const { params } = groupAccessUnits('h265', splitAnnexB(data));
      assert.ok(params.vps);
      const sps = parseH265Sps(params.sps);
      const [width, height] = v.size.split('x').map(Number);
      assert.deepEqual([sps.width, sps.height], [width, height]);
      assert.equal(sps.chromaFormatIdc, v.chromaFormatIdc);
      assert.equal(sps.bitDepthLuma, v.bitDepth);
      assert.equal(sps.bitDepthChroma, v.bitDepth);
      assert.equal(sps.maxSubLayers, v.maxSubLayers);

      const names = ['general_profile_idc', 'general_level_idc', 'sps_max_num_reorder_pics[0]'];
      const { mp4, fields: trace } = await remuxWithTrace(path, join(dir, `${v.name}.mp4`), names, ['-tag:v', 'hvc1']);
      const ffmpegTrack = parseInitSegment(mp4).video;
      assert.deepEqual([ffmpegTrack?.width, ffmpegTrack?.height], [width, height]);
      assert.equal(sps.profileTierLevel.profileIdc, v.profileIdc);
      assert.equal(sps.profileTierLevel.profileIdc, trace.get('general_profile_idc'));
      assert.equal(sps.profileTierLevel.levelIdc, trace.get('general_level_idc'));
      if (v.maxSubLayers === 1) assert.equal(sps.maxNumReorderPics, trace.get('sps_max_num_reorder_pics[0]'));

      const hvcC = buildHvcC(params.vps, params.sps, params.pps);
      assert.equal(hevcCodecString(hvcC, 'hvc1'), ffmpegTrack?.codec);
    }),
  );
  await Promise.all(runs);
});

test('hvcC layout and malformed input', { skip }, async (t) => {
  const dir = await tempDir(t);
  const { data } = await encodeAnnexB(dir, 'm.hevc', {
    codec: 'h265', size: '320x240', frames: 1, args: ['-preset', 'ultrafast', '-x265-params', X265],
  });
  const { params } = groupAccessUnits('h265', splitAnnexB(data));
  const vps = params.vps;
  assert.ok(vps);
  const sps = parseH265Sps(params.sps);
  assert.match(hevcCodecString(buildHvcC(vps, params.sps, params.pps), 'hvc1'), /^hvc1\.1\.6\.L\d+\.[0-9A-F]{2}$/);
  assert.equal(sps.profileTierLevel.profileIdc, 1);
  assert.equal(sps.profileTierLevel.tierFlag, false);

  const hvcC = buildHvcC(vps, params.sps, params.pps);
  assert.equal(hvcC.readUInt8(0), 1);
  assert.equal(hvcC.readUInt8(21) & 0x03, 3, 'lengthSizeMinusOne');
  assert.equal((hvcC.readUInt8(21) >> 3) & 0x07, 1, 'numTemporalLayers');
  assert.equal(hvcC.readUInt8(22), 3, 'numOfArrays');
  let off = 23;
  for (const [type, nalus] of [[32, [vps]], [33, [params.sps]], [34, params.pps]] as const) {
    assert.equal(hvcC.readUInt8(off), 0x80 | type, 'array_completeness + type');
    assert.equal(hvcC.readUInt16BE(off + 1), nalus.length);
    off += 3;
    for (const nal of nalus) {
      assert.equal(hvcC.readUInt16BE(off), nal.length);
      assert.ok(hvcC.subarray(off + 2, off + 2 + nal.length).equals(nal));
      assert.equal(h265NalType(nal), type);
      off += 2 + nal.length;
    }
  }
  assert.equal(off, hvcC.length);

  assert.throws(() => parseH265Sps(vps), BitstreamError);
  assert.throws(() => parseH265Sps(params.sps.subarray(0, 12)), BitstreamError);
  assert.throws(() => buildHvcC(vps, params.sps, []), RangeError);
});
