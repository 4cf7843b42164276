// A subscriber's bounded queue: in-order delivery, never blocking, skipping to a keyframe when full.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { StreamItem } from '../../src/stream/stream-item.js';
import { SubscriberQueue } from '../../src/stream/subscriber-queue.js';
import { fakeFragment, fakeInit } from './fragments.js';

test('items are handled one at a time, in order', async () => {
  const seen: number[] = [];
  let inFlight = 0;
  const q = new SubscriberQueue({
    kind: 'live',
    maxQueuedBytes: 1e9,
    handle: async (item) => {
      inFlight++;
      assert.equal(inFlight, 1);
      await new Promise((r) => setTimeout(r, 1));
      if (item.type === 'fragment') seen.push(item.fragment.sequenceNumber);
      inFlight--;
    },
  });
  for (let i = 0; i < 20; i++) q.offer({ type: 'fragment', fragment: fakeFragment(i, i % 5 === 0), receivedAt: 0 });
  await q.drained();
  assert.deepEqual(seen, [...Array(20).keys()]);
});

test('a subscriber that falls behind drops its backlog and resumes at the next keyframe', async () => {
  const seen: StreamItem[] = [];
  let release: () => void = () => undefined;
  const gate = new Promise<void>((r) => (release = r));
  const q = new SubscriberQueue({
    kind: 'live',
    maxQueuedBytes: 5000,
    handle: async (item) => {
      await gate;
      seen.push(item);
    },
  });
  q.offer({ type: 'init', init: fakeInit() });
  // 1 s GOPs of 5 fragments, 1000 bytes each: the 6th queued fragment overflows 5000 bytes.
  for (let i = 0; i < 13; i++) q.offer({ type: 'fragment', fragment: fakeFragment(i, i % 5 === 0), receivedAt: 0 });
  release();
  await q.drained();
  const delivered = seen.filter((s) => s.type === 'fragment').map((s) => (s.type === 'fragment' ? s.fragment.sequenceNumber : -1));
  assert.equal(seen[0]?.type, 'init', 'the init segment is never dropped');
  assert.deepEqual(delivered, [10, 11, 12], 'resumes exactly at the keyframe fragment 10');
  assert.equal(q.stats.dropped, 10);
  assert.equal(q.stats.skips, 2, 'one skip at keyframe 5, one at keyframe 10');
});

test('a handler error is reported and does not stop delivery', async () => {
  const errors: unknown[] = [];
  const seen: number[] = [];
  const q = new SubscriberQueue({
    kind: 'recording',
    maxQueuedBytes: 1e9,
    handle: (item) => {
      if (item.type !== 'fragment') return;
      if (item.fragment.sequenceNumber === 1) throw new Error('disk full');
      seen.push(item.fragment.sequenceNumber);
    },
    onError: (e) => errors.push(e),
  });
  for (let i = 0; i < 3; i++) q.offer({ type: 'fragment', fragment: fakeFragment(i, true), receivedAt: 0 });
  await q.drained();
  assert.deepEqual(seen, [0, 2]);
  assert.equal(errors.length, 1);
});
