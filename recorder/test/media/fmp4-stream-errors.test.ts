// Stream parser failure handling and restarts: maxBoxBytes, reset(), new init mid-stream, corrupt input.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { Fmp4StreamParser } from '../../src/media/fmp4-stream-parser.js';
import type { InitSegment, MediaFragment } from '../../src/media/fmp4-types.js';
import { box, u32 } from './box-builder.js';
import { encodeFragmented, parseChunked, tempDir } from './fixtures.js';

function collector(): { parser: Fmp4StreamParser; inits: InitSegment[]; fragments: MediaFragment[]; errors: Error[] } {
  const inits: InitSegment[] = [];
  const fragments: MediaFragment[] = [];
  const errors: Error[] = [];
  const parser = new Fmp4StreamParser({
    onInit: (i) => inits.push(i),
    onFragment: (f) => fragments.push(f),
    onError: (e) => errors.push(e),
  });
  return { parser, inits, fragments, errors };
}

test('stream parser errors and restarts', async (t) => {
  const dir = await tempDir(t);
  const video = ['-c:v', 'libx264', '-g', '25', '-pix_fmt', 'yuv420p'];
  const a = await readFile(await encodeFragmented(dir, 'a.mp4', { seconds: 2, video, size: '320x240' }));
  const b = await readFile(await encodeFragmented(dir, 'b.mp4', { seconds: 2, video, audio: true, size: '352x288' }));
  const ref = { a: parseChunked(a, () => a.length), b: parseChunked(b, () => b.length) };
  assert.equal(ref.a.inits.length, 1);
  assert.equal(ref.b.inits.length, 1);

  await t.test('maxBoxBytes exceeded -> onError once, then input is ignored until reset()', () => {
    const r = parseChunked(Buffer.concat([a, a]), () => 1000, { maxBoxBytes: 2000 });
    assert.equal(r.errors.length, 1);
    assert.match(r.errors[0]?.message ?? '', /larger than maxBoxBytes 2000/);
    assert.equal(r.inits.length, 1, 'the small init still came through');
    assert.equal(r.fragments.length, 0);
  });

  await t.test('reset() then a new ffmpeg process: partial state is dropped, new init is used', () => {
    const c = collector();
    const firstFrag = ref.a.fragments[0];
    assert.ok(firstFrag);
    const cut = (ref.a.inits[0]?.data.length ?? 0) + firstFrag.data.length + 50; // inside fragment 2
    c.parser.push(a.subarray(0, cut));
    assert.equal(c.fragments.length, 1);
    c.parser.reset();
    assert.equal(c.parser.currentInit, null);
    for (let i = 0; i < b.length; i += 777) c.parser.push(b.subarray(i, i + 777));
    assert.deepEqual(c.errors, []);
    assert.equal(c.inits.length, 2);
    assert.equal(c.inits[1]?.tracks.length, 2);
    assert.equal(c.inits[1]?.video?.width, 352);
    assert.equal(c.fragments.length, 1 + ref.b.fragments.length);
    c.fragments.slice(1).forEach((f, i) => assert.ok(f.data.equals(ref.b.fragments[i]?.data ?? Buffer.alloc(0))));
  });

  await t.test('a new ftyp+moov at a box boundary is accepted without reset()', () => {
    const r = parseChunked(Buffer.concat([a, b, a]), () => 4096);
    assert.deepEqual(r.errors, []);
    assert.deepEqual(r.inits.map((i) => i.video?.width), [320, 352, 320]);
    assert.equal(r.fragments.length, 2 * ref.a.fragments.length + ref.b.fragments.length);
    assert.equal(r.fragments.filter((f) => f.keyframe).length, 6);
  });

  await t.test('after an error, reset() makes the parser usable again', () => {
    const c = collector();
    c.parser.push(Buffer.from([0, 0, 0, 24, 0xde, 0xad, 0xbe, 0xef, ...Buffer.alloc(16)]));
    assert.equal(c.errors.length, 1);
    assert.match(c.errors[0]?.message ?? '', /invalid box type/);
    c.parser.push(a);
    assert.equal(c.inits.length, 0, 'ignored while failed');
    c.parser.reset();
    c.parser.push(a);
    assert.equal(c.errors.length, 1);
    assert.equal(c.inits.length, 1);
    assert.equal(c.fragments.length, ref.a.fragments.length);
  });

  await t.test('protocol violations are errors', () => {
    const initLen = ref.a.inits[0]?.data.length ?? 0;
    const cases: Array<[string, Buffer, RegExp]> = [
      ['moof before init', a.subarray(initLen), /before any init segment/],
      ['mdat without moof', Buffer.concat([a.subarray(0, initLen), box('mdat', Buffer.alloc(4))]), /without a preceding moof/],
      ['size 0 box', Buffer.concat([a.subarray(0, initLen), u32(0), Buffer.from('mdat')]), /size 0/],
      ['invalid size', Buffer.concat([u32(4), Buffer.from('ftyp')]), /invalid size 4/],
      ['truncated moov', Buffer.concat([box('ftyp', Buffer.from('isom')), box('moov', box('trak', u32(99)))]), /tkhd|truncated/],
    ];
    for (const [name, input, message] of cases) {
      const r = parseChunked(input, () => 3);
      assert.equal(r.errors.length, 1, name);
      assert.match(r.errors[0]?.message ?? '', message, name);
    }
  });

  await t.test('exceptions thrown by handlers propagate without corrupting the parser', () => {
    const fragments: MediaFragment[] = [];
    let thrown = 0;
    const parser = new Fmp4StreamParser({
      onInit: () => undefined,
      onFragment: (f) => {
        fragments.push(f);
        if (fragments.length === 2) throw new Error('consumer failed');
      },
      onError: (e) => assert.fail(e),
    });
    try {
      parser.push(a);
    } catch (err) {
      thrown++;
      assert.match((err as Error).message, /consumer failed/);
    }
    parser.push(Buffer.alloc(0)); // resumes with the already-buffered input
    assert.equal(thrown, 1);
    assert.equal(fragments.length, ref.a.fragments.length);
    assert.equal(parser.bufferedBytes, 0);
  });
});
