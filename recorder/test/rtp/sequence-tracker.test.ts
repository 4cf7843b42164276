// Sequence numbers: losses, duplicates, late packets, wrap-around, sender restarts, Receiver Report figures.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SequenceTracker } from '../../src/rtp/sequence-tracker.js';

const accept = (t: SequenceTracker, seqs: number[]): string[] => seqs.map((s) => t.accept(s));

test('in order, a gap of n counts n lost, duplicates and late packets are ignored', () => {
  const t = new SequenceTracker();
  assert.deepEqual(accept(t, [10, 11, 14, 14, 12, 15, 20]), ['first', 'next', 'gap', 'duplicate', 'duplicate', 'next', 'gap']);
  assert.equal(t.lost, 2 + 4);
  assert.equal(t.lastGap, 4);
});

test('65535 → 0 is the next packet, and the wrap is counted in the extended sequence', () => {
  const t = new SequenceTracker();
  assert.deepEqual(accept(t, [65534, 65535, 0, 1]), ['first', 'next', 'next', 'next']);
  assert.equal(t.lost, 0);
  assert.equal(t.extendedHighestSequence, 0x10001);
  assert.equal(t.expected, 4);
  assert.deepEqual(accept(t, [65535, 3]), ['duplicate', 'gap']);
  assert.equal(t.lost, 1);
});

test('a lone packet far off is ignored; two in a row are a sender restart, not a loss', () => {
  const t = new SequenceTracker();
  assert.deepEqual(accept(t, [100, 101, 40000, 102, 103]), ['first', 'next', 'jump', 'next', 'next']);
  assert.deepEqual(accept(t, [30000, 30001, 30002]), ['jump', 'resync', 'next']);
  assert.equal(t.lost, 0);
  assert.equal(t.extendedHighestSequence, 30002);
  assert.equal(t.expected, 2);
});

test('loss report: fraction per interval, cumulative since the start', () => {
  const t = new SequenceTracker();
  accept(t, [0, 1, 2, 3, 8, 9]);
  // Expected 10, received 6.
  assert.deepEqual(t.takeLossReport(), { fractionLost: Math.floor((4 * 256) / 10), cumulativeLost: 4, extendedHighestSequence: 9 });
  accept(t, [10, 11, 12, 13]);
  assert.deepEqual(t.takeLossReport(), { fractionLost: 0, cumulativeLost: 4, extendedHighestSequence: 13 });
  t.reset();
  assert.equal(t.accept(500), 'first');
  assert.equal(t.lost, 4, 'the life-long count stays');
});
