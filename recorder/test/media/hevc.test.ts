// HEVC codec string from real libx265 fragmented output (skipped when ffmpeg lacks libx265).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { encodeFragmented, hasEncoder, parseChunked, probeVideoKeyframes, probeVideoStream, tempDir } from './fixtures.js';

const available = await hasEncoder('libx265');

test('HEVC codec string from libx265 output', { skip: available ? false : 'ffmpeg has no libx265 encoder' }, async (t) => {
  const dir = await tempDir(t);
  for (const tag of ['hev1', 'hvc1'] as const) {
    const path = await encodeFragmented(dir, `${tag}.mp4`, {
      seconds: 2,
      size: '320x240',
      video: ['-c:v', 'libx265', '-x265-params', 'log-level=error:keyint=25:min-keyint=25', '-pix_fmt', 'yuv420p', '-tag:v', tag],
    });
    const file = await readFile(path);
    const r = parseChunked(file, () => 1500);
    assert.deepEqual(r.errors, []);
    const video = r.inits[0]?.video;
    assert.ok(video);
    const probe = await probeVideoStream(path);
    // Main profile (1), compatible with Main + Main 10 (6), main tier, level as general_level_idc.
    assert.equal(probe.profile, 'Main');
    assert.ok(video.codec.startsWith(`${tag}.`), video.codec);
    assert.match(video.codec, /^(hvc1|hev1)\.1\.6\.L\d+\.[0-9A-F]{2}/);
    assert.equal(video.codec.split('.')[3], `L${probe.level}`);
    assert.deepEqual([video.width, video.height], [320, 240]);
    const keys = await probeVideoKeyframes(path);
    assert.equal(r.fragments.filter((f) => f.keyframe).length, keys.filter(Boolean).length);
  }
});
