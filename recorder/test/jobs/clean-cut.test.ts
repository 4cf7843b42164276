// Where an export's last file is cut: at `to` for pictures in decode order, at a hole-free point with B-frames.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cleanOutpoint, type VideoPacket } from '../../src/jobs/clean-cut.js';

const F = 0.04;

/** Decode order I0 P3 B1 B2 P6 B4 B5 …: each P shown after the two B pictures that decode after it. */
function ipbb(groups: number): VideoPacket[] {
  const packets: VideoPacket[] = [{ pts: 2 * F, dts: 0 }];
  for (let g = 0; g < groups; g++) {
    const base = 3 * g;
    for (const shown of [base + 3, base + 1, base + 2]) packets.push({ pts: (shown + 2) * F, dts: packets.length * F });
  }
  return packets;
}

test('without B-frames the cut is `to` itself', () => {
  const packets = Array.from({ length: 50 }, (_, i) => ({ pts: i * F, dts: i * F }));
  assert.equal(cleanOutpoint(packets, 1.23), 1.23);
});

test('with B-frames the kept pictures are every picture shown before some moment at or after `to`: no hole', () => {
  const packets = ipbb(20);
  for (let to = 0.05; to < 2.3; to += 0.013) {
    const cut = cleanOutpoint(packets, to);
    const kept = cut === undefined ? packets : packets.filter((p) => p.dts < cut);
    const shown = kept.map((p) => Math.round(p.pts / F)).sort((a, b) => a - b);
    assert.ok(shown.every((n, i) => i === 0 || n === (shown[i - 1] as number) + 1), `to ${to.toFixed(3)}: ${shown.slice(-5).join(', ')}`);
    // Every picture shown before `to` is kept, and at most one mini-group (three pictures) more.
    const before = packets.filter((p) => p.pts < to).length;
    assert.ok(kept.length >= before && kept.length <= before + 3, `to ${to.toFixed(3)}: ${kept.length} kept, ${before} shown before`);
  }
});

test('the case seen in CI: a cut that would keep P224 and drop B223 keeps B223 too', () => {
  // Decode order …, P221, B219, B220, P224, B222, B223, P227 …; `to` falls between 222 and 223.
  const order = [221, 219, 220, 224, 222, 223, 227, 225, 226];
  const packets = order.map((n, i) => ({ pts: n * F, dts: (216 + i) * F }));
  const to = 222.5 * F;
  const cut = cleanOutpoint(packets, to) as number;
  const kept = packets.filter((p) => p.dts < cut).map((p) => Math.round(p.pts / F)).sort((a, b) => a - b);
  assert.deepEqual(kept, [219, 220, 221, 222, 223, 224]);
});

test('no clean cut inside the file: the file is kept whole', () => {
  const packets = ipbb(2);
  assert.equal(cleanOutpoint(packets, 100), undefined);
});
