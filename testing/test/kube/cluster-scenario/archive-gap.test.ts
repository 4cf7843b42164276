// The archive gap from a segment listing: touching segments, a failover's hole, double recording, a stream that stopped.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { largestGap, spansOf, type SegmentRecord } from '../../../src/kube/cluster-scenario.js';

const T0 = Date.parse('2026-11-22T10:00:00Z') / 1000;
const seg = (startOffset: number, endOffset: number, open = false, seq = startOffset): SegmentRecord => ({
  timestamp: new Date((T0 + startOffset) * 1000).toISOString().replace('Z', '+00:00'), sequence: seq, filename: `cam/x_${seq}.mp4`, size: 1000, mtime: T0 + endOffset, is_open: open,
});

test('segments that follow one another leave no gap', () => {
  const spans = spansOf([seg(0, 4), seg(4, 8), seg(8, 12)], T0 + 12);
  assert.deepEqual(largestGap(spans, T0, T0 + 12), { seconds: 0 });
});

test('a failover: the dead node\'s last segment ends, the new node\'s first starts 17 s later', () => {
  const listing = [seg(0, 4), seg(4, 8), seg(25, 29, false, 1), seg(29, 40, true, 2)];
  const gap = largestGap(spansOf(listing, T0 + 40), T0, T0 + 40);
  assert.deepEqual(gap, { seconds: 17, from: T0 + 8, to: T0 + 25 });
});

test('two nodes recording at once (overlapping segments) count as covered; the listing order does not matter', () => {
  const listing = [seg(20, 30), seg(0, 12), seg(10, 22)];
  assert.equal(largestGap(spansOf(listing, T0 + 30), T0, T0 + 30).seconds, 0);
});

test('a stream that stopped shows as a gap up to the end of the window; the open segment reaches now', () => {
  assert.deepEqual(largestGap(spansOf([seg(0, 10)], T0 + 50), T0, T0 + 50), { seconds: 40, from: T0 + 10, to: T0 + 50 });
  assert.equal(largestGap(spansOf([seg(0, 10, true)], T0 + 50), T0, T0 + 50).seconds, 0);
});

test('only the window counts: a hole before `from` is not reported', () => {
  const listing = [seg(0, 5), seg(60, 70), seg(70, 80)];
  assert.equal(largestGap(spansOf(listing, T0 + 80), T0 + 62, T0 + 80).seconds, 0);
  assert.equal(largestGap(spansOf(listing, T0 + 80), T0, T0 + 80).seconds, 55);
});

test('a camera that began recording inside the window has no gap before its first segment', () => {
  assert.equal(largestGap(spansOf([seg(10, 20), seg(20, 30, true)], T0 + 30), T0, T0 + 30).seconds, 0);
});
