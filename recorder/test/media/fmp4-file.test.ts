// scanFragmentedFile on real ffmpeg output: truncated mdat, partial moov, garbage tails, repaired file plays.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { scanFragmentedFile } from '../../src/media/fmp4-file.js';
import { u32 } from './box-builder.js';
import { encodeFragmented, parseChunked, run, tempDir } from './fixtures.js';

test('scanFragmentedFile', async (t) => {
  const dir = await tempDir(t);
  const path = await encodeFragmented(dir, 'av.mp4', {
    seconds: 4,
    audio: true,
    video: ['-c:v', 'libx264', '-profile:v', 'main', '-g', '25', '-pix_fmt', 'yuv420p'],
  });
  const file = await readFile(path);
  const parsed = parseChunked(file, () => file.length);
  const init = parsed.inits[0];
  assert.ok(init);
  const frags = parsed.fragments;
  const ends: number[] = [];
  let offset = init.data.length;
  for (const f of frags) ends.push((offset += f.data.length));
  const durationOf = (n: number): number => frags.slice(0, n).reduce((s, f) => s + f.duration, 0);

  await t.test('complete file', async () => {
    const scan = await scanFragmentedFile(path);
    assert.equal(scan.fileSize, file.length);
    assert.equal(scan.initEnd, init.data.length);
    assert.equal(scan.completeEnd, file.length);
    assert.equal(scan.fragments, frags.length);
    assert.equal(scan.firstDecodeTime, frags[0]?.decodeTime);
    assert.ok(Math.abs(scan.duration - durationOf(frags.length)) < 1e-9);
    assert.ok(Math.abs(scan.duration - 4) < 0.05);
  });

  await t.test('truncated in the middle of an mdat; truncating at completeEnd gives a playable file', async () => {
    const k = Math.floor(frags.length / 2);
    const frag = frags[k];
    const start = ends[k - 1];
    assert.ok(frag && start !== undefined);
    const moofSize = frag.data.readUInt32BE(0);
    const cut = start + moofSize + 8 + Math.floor((frag.data.length - moofSize - 8) / 2);
    const broken = join(dir, 'broken.mp4');
    await writeFile(broken, file.subarray(0, cut));
    const scan = await scanFragmentedFile(broken);
    assert.equal(scan.fileSize, cut);
    assert.equal(scan.initEnd, init.data.length);
    assert.equal(scan.completeEnd, start);
    assert.equal(scan.fragments, k);
    assert.ok(Math.abs(scan.duration - durationOf(k)) < 1e-9);

    await truncate(broken, scan.completeEnd);
    const probe = await run('ffprobe', ['-v', 'error', '-show_entries', 'format=duration', '-of', 'csv=p=0', broken]);
    assert.equal(probe.stderr, '', 'ffprobe reports no errors');
    const probed = Number(probe.stdout.trim());
    assert.ok(Math.abs(probed - scan.duration) < 0.1, `ffprobe duration ${probed} vs scan ${scan.duration}`);
    const decode = await run('ffmpeg', ['-v', 'error', '-i', broken, '-f', 'null', '-']);
    assert.equal(decode.stderr, '', 'decodes cleanly');
  });

  await t.test('truncated inside a moof or right after it', async () => {
    const start = ends[2];
    const frag = frags[3];
    assert.ok(start !== undefined && frag);
    for (const cut of [start + 3, start + 20, start + frag.data.readUInt32BE(0), start + frag.data.readUInt32BE(0) + 5]) {
      const p = join(dir, `cut-${cut}.mp4`);
      await writeFile(p, file.subarray(0, cut));
      const scan = await scanFragmentedFile(p);
      assert.deepEqual([scan.completeEnd, scan.fragments], [start, 3], `cut at ${cut}`);
    }
  });

  await t.test('only a partial moov gives initEnd 0', async () => {
    const moovStart = init.data.readUInt32BE(0); // right after ftyp
    for (const cut of [moovStart, moovStart + 4, moovStart + 100, init.data.length - 1]) {
      const p = join(dir, 'partial-moov.mp4');
      await writeFile(p, file.subarray(0, cut));
      const scan = await scanFragmentedFile(p);
      assert.deepEqual({ ...scan }, { initEnd: 0, completeEnd: 0, fragments: 0, firstDecodeTime: NaN, duration: 0, fileSize: cut });
    }
    const empty = join(dir, 'empty.mp4');
    await writeFile(empty, Buffer.alloc(0));
    assert.equal((await scanFragmentedFile(empty)).initEnd, 0);
  });

  await t.test('garbage tails are tolerated', async () => {
    const keep = ends[4];
    assert.ok(keep !== undefined);
    const tails: Array<[string, Buffer]> = [
      ['box size larger than the file', Buffer.concat([u32(0x7ffffff0), Buffer.from('moof'), Buffer.alloc(100)])],
      ['mdat size larger than the file', Buffer.concat([u32(0xfffffff0), Buffer.from('mdat'), Buffer.alloc(100)])],
      ['random bytes', Buffer.from(Array.from({ length: 300 }, (_, i) => (i * 131 + 17) & 0xff))],
      ['zeros', Buffer.alloc(4096)],
      ['invalid size 3', Buffer.concat([u32(3), Buffer.from('free'), Buffer.alloc(8)])],
      ['largesize beyond the file', Buffer.concat([u32(1), Buffer.from('mdat'), u32(0x10), u32(0), Buffer.alloc(16)])],
      ['moof with a mangled body', Buffer.concat([u32(24), Buffer.from('moof'), u32(16), Buffer.from('traf'), Buffer.alloc(8, 0xff)])],
    ];
    for (const [name, tail] of tails) {
      const p = join(dir, 'garbage.mp4');
      await writeFile(p, Buffer.concat([file.subarray(0, keep), tail]));
      const scan = await scanFragmentedFile(p);
      assert.deepEqual([scan.initEnd, scan.completeEnd, scan.fragments], [init.data.length, keep, 5], name);
    }
  });
});
