// Property tests of the MP4A-LATM depacketizer (fast-check): any packetization round-trips, losses never yield a wrong frame, garbage never throws.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import type { AudioAccessUnit } from '../../src/rtp/access-unit.js';
import { LatmDepacketizer } from '../../src/rtp/latm-depacketizer.js';
import { element, muxConfigHex } from './latm-builder.js';
import { feed, rtpPacket } from './rtp-builder.js';

const FRAME_TICKS = 1024;

interface Plan {
  framesPerElement: number;
  /** Each element's frames. */
  elements: Buffer[][];
  /** Consecutive elements per packet (whole), or a fragment size (one element over several packets). */
  packing: Array<{ count: number; fragment: number | undefined }>;
}

interface SentPacket {
  packet: Buffer;
  /** Index of the first element the packet carries (or part of). */
  firstElement: number;
  elements: number;
  whole: boolean;
}

/** Frames of random size and content, grouped into elements and packets. */
const planArb: fc.Arbitrary<Plan> = fc.integer({ min: 1, max: 3 }).chain((framesPerElement) =>
  fc.record({
    framesPerElement: fc.constant(framesPerElement),
    elements: fc.array(fc.array(fc.uint8Array({ minLength: 1, maxLength: 700 }).map((a) => Buffer.from(a)), { minLength: framesPerElement, maxLength: framesPerElement }), { minLength: 1, maxLength: 30 }),
    packing: fc.array(fc.record({ count: fc.integer({ min: 1, max: 3 }), fragment: fc.option(fc.integer({ min: 1, max: 400 }), { nil: undefined }) }), { minLength: 30, maxLength: 30 }),
  }),
);

/** The packets of a plan: whole elements `count` at a time, or one element cut into `fragment`-byte parts. */
function packetize(plan: Plan, fill?: number): { sent: SentPacket[]; frames: Map<number, Buffer> } {
  const sent: SentPacket[] = [];
  const frames = new Map<number, Buffer>();
  let seq = 100;
  let e = 0;
  let step = 0;
  const elementTs = (i: number): number => (5000 + i * plan.framesPerElement * FRAME_TICKS) >>> 0;
  const content = (f: Buffer): Buffer => (fill === undefined ? f : Buffer.alloc(f.length, fill));
  plan.elements.forEach((fs, i) => fs.forEach((f, k) => frames.set(elementTs(i) + k * FRAME_TICKS, content(f))));
  while (e < plan.elements.length) {
    const { count, fragment } = plan.packing[step++ % plan.packing.length] as Plan['packing'][number];
    if (fragment !== undefined) {
      const bytes = element((plan.elements[e] as Buffer[]).map(content));
      for (let at = 0; at < bytes.length; at += fragment) {
        const last = at + fragment >= bytes.length;
        sent.push({ packet: rtpPacket({ seq: seq++, ts: elementTs(e), marker: last }, bytes.subarray(at, at + fragment)), firstElement: e, elements: 1, whole: at === 0 && last });
      }
      e++;
    } else {
      const n = Math.min(count, plan.elements.length - e);
      const bytes = Buffer.concat(plan.elements.slice(e, e + n).map((fs) => element(fs.map(content))));
      sent.push({ packet: rtpPacket({ seq: seq++, ts: elementTs(e), marker: true }, bytes), firstElement: e, elements: n, whole: true });
      e += n;
    }
  }
  return { sent, frames };
}

function depacketizer(framesPerElement: number): { d: LatmDepacketizer; out: AudioAccessUnit[] } {
  const out: AudioAccessUnit[] = [];
  const d = new LatmDepacketizer({ fmtp: { cpresent: '0', config: muxConfigHex({ framesPerElement }) }, clockRate: 48000, onUnit: (u) => out.push(u as AudioAccessUnit) });
  return { d, out };
}

test('any packetization (whole, concatenated, fragmented elements) gives back every frame, in order, at its time', () => {
  fc.assert(
    fc.property(planArb, (plan) => {
      const { sent, frames } = packetize(plan);
      const { d, out } = depacketizer(plan.framesPerElement);
      feed(d, sent.map((s) => s.packet));
      assert.deepEqual(out.map((u) => u.rtpTimestamp), [...frames.keys()]);
      out.forEach((u) => assert.deepEqual(u.data, frames.get(u.rtpTimestamp)));
      assert.equal(d.stats.malformedPackets + d.stats.droppedUnits, 0);
    }),
    { numRuns: 150 },
  );
});

test('with packets lost, every frame given is one that was sent, at its time, and every element that arrived whole is kept', () => {
  fc.assert(
    fc.property(planArb, fc.array(fc.boolean(), { minLength: 200, maxLength: 200 }), (plan, keep) => {
      // Frames of 0xff bytes: a fragment's middle never reads as an element (its length field never ends).
      const { sent, frames } = packetize(plan, 0xff);
      const arrived = sent.map((_, i) => i === 0 || keep[i % keep.length] !== false);
      const { d, out } = depacketizer(plan.framesPerElement);
      feed(d, sent.filter((_, i) => arrived[i]).map((s) => s.packet));
      for (const u of out) assert.deepEqual(u.data, frames.get(u.rtpTimestamp), `frame at ${u.rtpTimestamp}`);
      // An element is kept when all its packets arrived and it did not come right after a loss — or did, alone in one packet.
      const expected = new Set<number>();
      sent.forEach((s, i) => {
        if (!arrived[i] || ((s.packet[1] ?? 0) & 0x80) === 0) return;
        let first = i;
        while (first > 0 && sent[first - 1]?.firstElement === s.firstElement && !sent[first - 1]?.whole) first--;
        for (let j = first; j <= i; j++) if (!arrived[j]) return;
        const afterLoss = first > 0 && !arrived[first - 1];
        if (afterLoss && !(s.whole && s.elements === 1)) return;
        for (let k = 0; k < s.elements; k++) {
          for (let f = 0; f < plan.framesPerElement; f++) expected.add((5000 + (s.firstElement + k) * plan.framesPerElement * FRAME_TICKS + f * FRAME_TICKS) >>> 0);
        }
      });
      const got = new Set(out.map((u) => u.rtpTimestamp));
      for (const ts of expected) assert.ok(got.has(ts), `the frame at ${ts} arrived whole and was kept`);
    }),
    { numRuns: 150 },
  );
});

test('garbage in any packet never throws, never gives a frame longer than the packets, and the next good element still comes out', () => {
  fc.assert(
    fc.property(
      fc.array(fc.record({ payload: fc.uint8Array({ maxLength: 600 }), marker: fc.boolean(), ts: fc.integer({ min: 0, max: 3 }), seqStep: fc.integer({ min: 0, max: 3 }) }), { maxLength: 60 }),
      fc.boolean(),
      (packets, cpresent) => {
        const out: AudioAccessUnit[] = [];
        const d = new LatmDepacketizer({ fmtp: { cpresent: cpresent ? '1' : '0', config: muxConfigHex() }, onUnit: (u) => out.push(u as AudioAccessUnit) });
        let seq = 0;
        let total = 0;
        const raw = packets.map((p) => {
          seq += p.seqStep;
          total += p.payload.length;
          return rtpPacket({ seq, ts: p.ts * 1024, marker: p.marker }, Buffer.from(p.payload));
        });
        feed(d, raw);
        for (const u of out) assert.ok(u.data.length <= total);
        const before = out.length;
        const good = Buffer.from([0x12, 0x34]);
        // A clean run of three whole elements (the first may be taken as the end of whatever came before).
        feed(d, [1, 2, 3].map((n) => rtpPacket({ seq: seq + n, ts: 90_000 + n * 1024, marker: true }, element([good], cpresent ? { muxConfig: true } : {}))));
        assert.ok(out.length - before >= 2, 'the stream recovers');
        for (const u of out.slice(before)) if (u.rtpTimestamp >= 90_000 + 2048) assert.deepEqual(u.data, good);
      },
    ),
    { numRuns: 300 },
  );
});
