// Stream parser against real ffmpeg H.264 fragmented output: init, codec string, keyframes, timing, chunking.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import {
  encodeFragmented, parseChunked, probeVideoKeyframes, probeVideoStream, seededRandom, tempDir, traceHeaderFields,
  type ParseResult,
} from './fixtures.js';

const H264_PROFILE_IDC: Record<string, number> = { Baseline: 66, 'Constrained Baseline': 66, Main: 77, Extended: 88, High: 100 };

/** Fragment index -> index of its first video sample in decode order. */
function firstSampleIndexes(result: ParseResult): number[] {
  const starts: number[] = [];
  let next = 0;
  for (const f of result.fragments) {
    starts.push(next);
    next += f.sampleCount ?? 0;
  }
  return starts;
}

/** What matters for equality between chunkings (fragment bytes compared separately). */
function summary(result: ParseResult): unknown {
  return {
    inits: result.inits.map((i) => ({ bytes: i.data.toString('base64'), tracks: i.tracks })),
    fragments: result.fragments.map((f) => ({ ...f, data: f.data.toString('base64') })),
    errors: result.errors.map((e) => e.message),
  };
}

test('H.264 fragmented stream from ffmpeg', async (t) => {
  const dir = await tempDir(t);
  const path = await encodeFragmented(dir, 'h264.mp4', {
    seconds: 6,
    video: ['-c:v', 'libx264', '-profile:v', 'main', '-g', '25', '-pix_fmt', 'yuv420p'],
  });
  const file = await readFile(path);
  const whole = parseChunked(file, () => file.length);

  await t.test('exactly one init with the stream codec string and dimensions', async () => {
    assert.deepEqual(whole.errors, []);
    assert.equal(whole.inits.length, 1);
    const init = whole.inits[0];
    assert.ok(init);
    assert.equal(init.tracks.length, 1);
    const video = init.video;
    assert.ok(video, 'video track found');
    assert.equal(video.handler, 'vide');
    assert.equal(video.width, 640);
    assert.equal(video.height, 360);
    assert.ok(video.timescale > 0);

    // Expected codec string from the SPS as ffmpeg itself decodes it, cross-checked against ffprobe.
    const probe = await probeVideoStream(path);
    const sps = await traceHeaderFields(path, [
      'profile_idc', 'level_idc',
      'constraint_set0_flag', 'constraint_set1_flag', 'constraint_set2_flag',
      'constraint_set3_flag', 'constraint_set4_flag', 'constraint_set5_flag',
    ]);
    assert.equal(sps.get('profile_idc'), H264_PROFILE_IDC[probe.profile], `ffprobe profile ${probe.profile}`);
    assert.equal(sps.get('level_idc'), probe.level);
    let compat = 0;
    for (let i = 0; i <= 5; i++) compat |= (sps.get(`constraint_set${i}_flag`) ?? 0) << (7 - i);
    const hex = (n: number): string => n.toString(16).toUpperCase().padStart(2, '0');
    const expected = `avc1.${hex(H264_PROFILE_IDC[probe.profile] ?? -1)}${hex(compat)}${hex(probe.level)}`;
    assert.equal(video.codec, expected);
    assert.match(video.codec, /^avc1\.4D..1E$/); // main profile, level 3.0 for 640x360@25
  });

  await t.test('keyframe fragments are exactly those starting with a keyframe', async () => {
    const keyPackets = await probeVideoKeyframes(path);
    const starts = firstSampleIndexes(whole);
    const totalSamples = whole.fragments.reduce((n, f) => n + (f.sampleCount ?? 0), 0);
    assert.equal(totalSamples, keyPackets.length, 'every packet lands in exactly one fragment');
    whole.fragments.forEach((f, i) => {
      assert.equal(f.keyframe, keyPackets[starts[i] ?? -1], `fragment ${i} (seq ${f.sequenceNumber})`);
    });
    const keyIndexes = keyPackets.flatMap((k, i) => (k ? [i] : []));
    assert.equal(keyIndexes.length, 6);
    assert.equal(whole.fragments.filter((f) => f.keyframe).length, 6);
    for (const k of keyIndexes) assert.ok(starts.includes(k), `keyframe packet ${k} starts a fragment`);
    assert.ok(whole.fragments.length > 6, 'most fragments do not start on a keyframe');
    assert.equal(whole.fragments[0]?.keyframe, true);
  });

  await t.test('timing: durations sum to 6 s, decode times are contiguous and monotonic', () => {
    const total = whole.fragments.reduce((s, f) => s + f.duration, 0);
    assert.ok(Math.abs(total - 6) < 0.05, `total duration ${total}`);
    for (let i = 1; i < whole.fragments.length; i++) {
      const prev = whole.fragments[i - 1];
      const cur = whole.fragments[i];
      assert.ok(prev && cur);
      assert.ok(cur.decodeTime > prev.decodeTime, `decodeTime increases at ${i}`);
      assert.ok(Math.abs(cur.decodeTime - (prev.decodeTime + prev.duration)) < 1e-6, `contiguous at ${i}`);
      assert.equal(cur.sequenceNumber, prev.sequenceNumber + 1);
    }
    assert.ok(Number.isFinite(whole.fragments[0]?.decodeTime));
  });

  await t.test('byte-exact: init + fragments reproduce the file', () => {
    const init = whole.inits[0];
    assert.ok(init);
    const rebuilt = Buffer.concat([init.data, ...whole.fragments.map((f) => f.data)]);
    assert.equal(rebuilt.length, file.length);
    assert.ok(rebuilt.equals(file));
    assert.equal(init.data.subarray(4, 8).toString('latin1'), 'ftyp');
    for (const f of whole.fragments) assert.equal(f.data.subarray(4, 8).toString('latin1'), 'moof');
  });

  await t.test('1 byte at a time gives the same result', () => {
    assert.deepEqual(summary(parseChunked(file, () => 1)), summary(whole));
  });

  await t.test('random chunk sizes give the same result', () => {
    for (const [seed, maxChunk] of [[1, 7], [2, 100], [3, 5000], [42, 70000]] as const) {
      const rnd = seededRandom(seed);
      assert.deepEqual(summary(parseChunked(file, () => 1 + Math.floor(rnd() * maxChunk))), summary(whole), `seed ${seed}`);
    }
  });
});
