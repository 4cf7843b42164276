// Seconds of media in a segment file, from mvhd or the first and last fragments: real ffmpeg files, cut tails, non-MP4s.
import assert from 'node:assert/strict';
import { open, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { scanFragmentedFile } from '../../src/media/fmp4-file.js';
import { readMediaSeconds } from '../../src/media/media-span.js';
import { encodeFragmented, run, tempDir } from './fixtures.js';

const X264 = ['-c:v', 'libx264', '-preset', 'ultrafast', '-g', '25'];

function near(actual: number | undefined, expected: number, tolerance: number, what: string): void {
  assert.ok(actual !== undefined && Math.abs(actual - expected) <= tolerance, `${what}: ${actual} s, expected ${expected} ± ${tolerance}`);
}

test('fragmented (video + AAC) and progressive files: the seconds of video they hold', async (t) => {
  const dir = await tempDir(t);
  const frag = await encodeFragmented(dir, 'frag.mp4', { seconds: 6, video: X264, audio: true, size: '320x240' });
  // The video track's timeline, as the writer counts it (with AAC, ffmpeg stretches the first frame a little).
  near(await readMediaSeconds(frag), (await scanFragmentedFile(frag)).duration, 0.001, 'fragmented');
  near(await readMediaSeconds(frag), 6, 0.05, 'fragmented');
  const prog = join(dir, 'prog.mp4');
  await run('ffmpeg', ['-v', 'error', '-y', '-i', frag, '-map', '0', '-c', 'copy', '-f', 'mp4', prog]);
  near(await readMediaSeconds(prog), 6, 0.1, 'progressive (mvhd)');
});

test('a cut-off tail: up to the last complete fragment, as the crash repair counts it', async (t) => {
  const dir = await tempDir(t);
  const frag = await encodeFragmented(dir, 'frag.mp4', { seconds: 4, video: X264, size: '320x240' });
  const whole = await readFile(frag);
  const cut = join(dir, 'cut.mp4');
  await writeFile(cut, whole.subarray(0, whole.length - 1500));
  const seconds = await readMediaSeconds(cut);
  near(seconds, (await scanFragmentedFile(cut)).duration, 0.001, 'the complete fragments');
  assert.ok(seconds !== undefined && seconds < 4 && seconds > 3.5, `${seconds}`);
});

test('a last fragment larger than the first tail read (720p at 8 Mbit/s)', async (t) => {
  const dir = await tempDir(t);
  const big = await encodeFragmented(dir, 'big.mp4', { seconds: 3, video: ['-c:v', 'libx264', '-preset', 'ultrafast', '-b:v', '8M', '-minrate', '8M', '-maxrate', '8M', '-bufsize', '2M', '-g', '25'], size: '1280x720' });
  const scan = await scanFragmentedFile(big);
  assert.ok((scan.fileSize - scan.initEnd) / scan.fragments > 96 * 1024, `fragments of ${Math.round((scan.fileSize - scan.initEnd) / scan.fragments / 1024)} KiB, more than the first 64 KiB tail read`);
  near(await readMediaSeconds(big), 3, 0.001, 'large fragments');
});

test('files that do not say: undefined (the caller falls back to mtime)', async (t) => {
  const dir = await tempDir(t);
  const text = join(dir, 'notes.mp4');
  await writeFile(text, 'not a video at all, just text that happens to be long enough to look like something');
  assert.equal(await readMediaSeconds(text), undefined);
  const empty = join(dir, 'empty.mp4');
  await writeFile(empty, '');
  assert.equal(await readMediaSeconds(empty), undefined);
  assert.equal(await readMediaSeconds(join(dir, 'absent.mp4')), undefined);
  // Only an init segment: no fragment, nothing to measure.
  const frag = await encodeFragmented(dir, 'frag.mp4', { seconds: 1, video: X264, size: '320x240' });
  const initEnd = (await scanFragmentedFile(frag)).initEnd;
  const fh = await open(frag, 'r+');
  await fh.truncate(initEnd);
  await fh.close();
  assert.equal((await stat(frag)).size, initEnd);
  assert.equal(await readMediaSeconds(frag), undefined);
});
