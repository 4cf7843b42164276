// Decode times from presentation order: exact chaining, B-frames with composition offsets, jitter, clock steps, losses.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import type { PictureOrder } from '../../src/media/picture-order.js';
import { VideoTimeline, type PicturePlacement } from '../../src/ingest/video-timeline.js';

const T = 3600;

interface Picture {
  ticks: number;
  order?: PictureOrder;
  keyframe?: boolean;
}

function placeAll(timeline: VideoTimeline, pictures: Picture[]): PicturePlacement[] {
  return pictures.map((p) => timeline.place(p.ticks, p.order, p.keyframe ?? false));
}

/** Decode order of GOPs like I P B B P B B … (`b` B-frames between references), presentation index per picture. */
function gop(length: number, b: number): number[] {
  const out = [0];
  for (let ref = b + 1; ref - b - 1 < length - 1; ref += b + 1) {
    const p = Math.min(ref, length - 1);
    out.push(p);
    for (let k = ref - b; k < p; k++) out.push(k);
  }
  return out;
}

/** Pictures of `gops` GOPs: RTP ticks from the presentation index, POC 2 per picture (as x264 writes), IDR each GOP. */
function stream(gops: number, length: number, b: number, start = 1_000_000, withPoc = true): Picture[] {
  const out: Picture[] = [];
  for (let g = 0; g < gops; g++) {
    for (const [i, index] of gop(length, b).entries()) {
      out.push({ ticks: start + (g * length + index) * T, keyframe: i === 0, ...(withPoc ? { order: { poc: 2 * index, reset: i === 0 } } : {}) });
    }
  }
  return out;
}

function assertChains(placements: PicturePlacement[]): void {
  placements.forEach((p, i) => {
    assert.ok(p.duration > 0, `picture ${i}: duration ${p.duration}`);
    const next = placements[i + 1];
    if (next !== undefined) assert.equal(next.decodeTime, p.decodeTime + p.duration, `picture ${i + 1} starts where ${i} ended`);
  });
}

const presentations = (placements: PicturePlacement[]): number[] => placements.map((p) => p.decodeTime + p.compositionOffset);

test('without reordering: decode times are the RTP times from the first picture, exact, and no composition offsets', () => {
  const timeline = new VideoTimeline({ reorderDepth: 0 });
  const placed = placeAll(timeline, stream(3, 25, 0));
  assertChains(placed);
  assert.deepEqual(placed.map((p) => p.decodeTime), placed.map((_, i) => i * T));
  assert.ok(placed.every((p) => p.compositionOffset === 0 && p.duration === T));
});

test('B-frames (depth announced): decode times rise by the picture interval, presentation times are exactly the camera’s', () => {
  for (const [b, depth] of [[1, 1], [2, 1], [3, 2]] as const) {
    const pictures = stream(4, 24, b);
    const timeline = new VideoTimeline({ reorderDepth: depth });
    const placed = placeAll(timeline, pictures);
    assertChains(placed);
    assert.ok(placed.every((p) => p.duration === T), `b=${b}: every decode duration is one interval`);
    assert.ok(placed.every((p) => p.compositionOffset >= 0), `b=${b}: no negative offset`);
    const first = pictures[0]?.ticks as number;
    assert.deepEqual(presentations(placed), pictures.map((p) => p.ticks - first + timeline.firstPresentation), `b=${b}: presentation = RTP time`);
    assert.equal(timeline.firstPresentation, depth * T);
    assert.equal(timeline.reorderGrowths + timeline.clockSteps, 0);
  }
});

test('B-frames the SPS does not announce: the depth is raised, the chain slows for a moment, then presentation is exact again', () => {
  const pictures = stream(6, 25, 2);
  const timeline = new VideoTimeline({ reorderDepth: undefined });
  const placed = placeAll(timeline, pictures);
  assertChains(placed);
  assert.equal(timeline.reorderDepth, 1);
  assert.equal(timeline.reorderGrowths, 1);
  const first = pictures[0]?.ticks as number;
  const offsets = presentations(placed).map((p, i) => p - ((pictures[i]?.ticks as number) - first));
  // From the second GOP on, every picture is presented at its camera time shifted by one constant.
  const settled = new Set(offsets.slice(25));
  assert.equal(settled.size, 1, `one constant shift after the first GOP (${[...settled].join(', ')})`);
  assert.ok(placed.slice(25).every((p) => p.compositionOffset >= 0));
});

test('jittery timestamps: the chain stays exact and follows the camera without drifting', () => {
  const timeline = new VideoTimeline({ reorderDepth: 0 });
  let seed = 7;
  const random = (): number => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const pictures = Array.from({ length: 2000 }, (_, i) => ({ ticks: 5000 + i * T + Math.round((random() - 0.5) * 1000), order: { poc: 2 * i, reset: i === 0 }, keyframe: i % 50 === 0 }));
  const placed = placeAll(timeline, pictures);
  assertChains(placed);
  const worst = Math.max(...placed.map((p, i) => Math.abs(p.decodeTime - ((pictures[i]?.ticks as number) - 5000))));
  assert.ok(worst < 2 * T, `never more than two intervals from the camera's time (worst ${worst} ticks)`);
  assert.equal(timeline.clockSteps, 0);
});

test('a camera clock stepping back (pictures still in order by POC): followed, nothing dropped, time goes on', () => {
  const pictures = stream(1, 100, 0);
  // After picture 50 the clock goes back 5 s.
  for (const p of pictures.slice(50)) p.ticks -= 5 * 90_000;
  const timeline = new VideoTimeline({ reorderDepth: 0 });
  const placed = placeAll(timeline, pictures);
  assertChains(placed);
  assert.equal(timeline.clockSteps, 1);
  assert.deepEqual(placed.map((p) => p.decodeTime), placed.map((_, i) => i * T), 'as if the clock had not stepped');
});

test('without POCs: a step back of seconds is a clock step, a step back of a few pictures is reordering', () => {
  const stepped = stream(1, 100, 0, 1_000_000, false);
  for (const p of stepped.slice(50)) p.ticks -= 5 * 90_000;
  const a = new VideoTimeline({ reorderDepth: 0 });
  assertChains(placeAll(a, stepped));
  assert.deepEqual([a.clockSteps, a.reorderDepth], [1, 0]);
  const b = new VideoTimeline({ reorderDepth: 0 });
  const placed = placeAll(b, stream(4, 24, 2, 1_000_000, false));
  assertChains(placed);
  assert.deepEqual([b.clockSteps, b.reorderDepth], [0, 1]);
});

test('a clock step forward of an hour: followed one interval on; a pause of 3 s is kept as a pause', () => {
  const pictures = stream(1, 20, 0);
  for (const p of pictures.slice(10)) p.ticks += 3600 * 90_000;
  const timeline = new VideoTimeline({ reorderDepth: 0 });
  const placed = placeAll(timeline, pictures);
  assertChains(placed);
  assert.equal(timeline.clockSteps, 1);
  assert.equal(placed[10]?.decodeTime, 10 * T);
  const paused = stream(1, 20, 0);
  for (const p of paused.slice(10)) p.ticks += 3 * 90_000;
  (paused[10] as Picture).keyframe = true;
  const c = new VideoTimeline({ reorderDepth: 0 });
  const placedPaused = placeAll(c, paused);
  assert.equal(c.clockSteps, 0);
  assert.equal(placedPaused[10]?.decodeTime, 10 * T + 3 * 90_000, 'the keyframe after the pause sits at its time');
});

test('pictures lost before a keyframe (an IDR after a B-frame GOP was cut): the gap is kept, the chain goes on from the keyframe', () => {
  const pictures = stream(3, 24, 2);
  // The second GOP loses everything after its third picture (a P and two B-frames made it).
  const kept = [...pictures.slice(0, 24 + 3), ...pictures.slice(48)];
  const timeline = new VideoTimeline({ reorderDepth: 1 });
  const placed = placeAll(timeline, kept);
  const idr = placed[27] as PicturePlacement;
  const before = placed[26] as PicturePlacement;
  assert.ok(idr.decodeTime > before.decodeTime + before.duration, 'a gap before the keyframe: pictures were lost');
  assertChains(placed.slice(27));
  const first = pictures[0]?.ticks as number;
  assert.deepEqual(presentations(placed.slice(27)), kept.slice(27).map((p) => p.ticks - first + timeline.firstPresentation), 'presented at their times');
  assert.ok(placed.slice(27).every((p) => p.compositionOffset >= 0));
});

test('property: any GOP structure, jitter and cut: decode times strictly rise and chain, presentation order is the camera’s', () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 0, max: 3 }),
      fc.integer({ min: 4, max: 30 }),
      fc.integer({ min: 1, max: 5 }),
      fc.option(fc.integer({ min: 0, max: 3 }), { nil: undefined }),
      fc.boolean(),
      fc.integer({ min: 0, max: 400 }),
      fc.integer({ min: 0, max: 0xffffffff }),
      (b, length, gops, announced, withPoc, jitter, seed) => {
        let s = seed;
        const random = (): number => ((s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
        const pictures = stream(gops, length, b, 1_000_000, withPoc).map((p) => ({ ...p, ticks: p.ticks + Math.round((random() - 0.5) * jitter) }));
        const timeline = new VideoTimeline({ reorderDepth: announced });
        const placed = placeAll(timeline, pictures);
        assertChains(placed);
        // Pictures far enough apart in the camera's presentation order keep that order (jitter can swap neighbours).
        const shown = presentations(placed);
        for (let i = 0; i < pictures.length; i++) {
          for (let j = 0; j < pictures.length; j++) {
            const di = (pictures[i] as Picture).ticks;
            const dj = (pictures[j] as Picture).ticks;
            if (dj - di > 2 * T + jitter) assert.ok((shown[j] as number) > (shown[i] as number), `picture ${j} after ${i}`);
          }
        }
      },
    ),
    { numRuns: 200 },
  );
});
