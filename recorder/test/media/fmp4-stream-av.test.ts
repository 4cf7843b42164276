// Stream parser against real ffmpeg H.264 + AAC output: audio track found, video keyframes still right.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { mimeTypeFor } from '../../src/media/codec-string.js';
import { encodeFragmented, parseChunked, probeVideoKeyframes, seededRandom, tempDir } from './fixtures.js';

test('H.264 + AAC fragmented stream from ffmpeg', async (t) => {
  const dir = await tempDir(t);
  const path = await encodeFragmented(dir, 'av.mp4', {
    seconds: 6,
    audio: true,
    video: ['-c:v', 'libx264', '-profile:v', 'main', '-g', '25', '-pix_fmt', 'yuv420p'],
  });
  const file = await readFile(path);
  const result = parseChunked(file, () => file.length);
  assert.deepEqual(result.errors, []);
  assert.equal(result.inits.length, 1);
  const init = result.inits[0];
  assert.ok(init);

  await t.test('finds both tracks with codec strings', () => {
    assert.equal(init.tracks.length, 2);
    const audio = init.tracks.find((tr) => tr.handler === 'soun');
    assert.ok(audio, 'audio track');
    assert.equal(audio.codec, 'mp4a.40.2');
    assert.equal(audio.sampleRate, 48000);
    assert.equal(audio.channels, 1);
    assert.equal(audio.width, undefined);
    assert.equal(init.video?.handler, 'vide');
    assert.match(init.video?.codec ?? '', /^avc1\.4D/);
    assert.equal(mimeTypeFor(init), `video/mp4; codecs="${init.tracks.map((tr) => tr.codec).join(',')}"`);
  });

  await t.test('video keyframes are detected per fragment', async () => {
    const keyPackets = await probeVideoKeyframes(path);
    let sample = 0;
    for (const [i, f] of result.fragments.entries()) {
      const count = f.sampleCount ?? 0;
      if (count > 0) assert.equal(f.keyframe, keyPackets[sample], `fragment ${i}`);
      else assert.equal(f.keyframe, false, `fragment ${i} without video samples`);
      sample += count;
    }
    assert.equal(sample, keyPackets.length);
    assert.equal(keyPackets.filter(Boolean).length, 6);
    assert.equal(result.fragments.filter((f) => f.keyframe).length, 6);
    const total = result.fragments.reduce((s, f) => s + f.duration, 0);
    assert.ok(Math.abs(total - 6) < 0.05, `video duration ${total}`);
  });

  await t.test('byte-exact and chunking-independent', () => {
    assert.ok(Buffer.concat([init.data, ...result.fragments.map((f) => f.data)]).equals(file));
    const rnd = seededRandom(7);
    const chunked = parseChunked(file, () => 1 + Math.floor(rnd() * 3000));
    assert.deepEqual(chunked.errors, []);
    assert.equal(chunked.fragments.length, result.fragments.length);
    chunked.fragments.forEach((f, i) => {
      const ref = result.fragments[i];
      assert.ok(ref && f.data.equals(ref.data));
      assert.deepEqual({ ...f, data: null }, { ...ref, data: null });
    });
  });
});
