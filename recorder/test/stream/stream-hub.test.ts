// The per-camera hub: late joiners start on the last keyframe; a stuck subscriber never holds up another.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { StreamHub } from '../../src/stream/stream-hub.js';
import type { StreamItem } from '../../src/stream/stream-item.js';
import { fakeFragment, fakeInit } from './fragments.js';

function collect(hub: StreamHub, maxQueuedBytes = 1e9, handle?: () => Promise<void>): { items: StreamItem[]; sub: ReturnType<StreamHub['subscribe']> } {
  const items: StreamItem[] = [];
  const sub = hub.subscribe({
    kind: 'live',
    maxQueuedBytes,
    handle: async (item) => {
      if (handle !== undefined) await handle();
      items.push(item);
    },
  });
  return { items, sub };
}

test('a late joiner gets the init segment and the fragments since the last keyframe', async () => {
  const hub = new StreamHub('cam');
  hub.publishInit(fakeInit());
  for (let i = 0; i < 8; i++) hub.publishFragment(fakeFragment(i, i % 5 === 0));
  const { items, sub } = collect(hub);
  hub.publishFragment(fakeFragment(8, false));
  await sub.drained();
  assert.equal(items[0]?.type, 'init');
  const seqs = items.flatMap((i) => (i.type === 'fragment' ? [i.fragment.sequenceNumber] : []));
  assert.deepEqual(seqs, [5, 6, 7, 8]);
  const first = items[1];
  assert.ok(first?.type === 'fragment' && first.fragment.keyframe, 'the first fragment a joiner sees is a keyframe');
});

test('a subscriber that never reads does not delay another', async () => {
  const hub = new StreamHub('cam');
  const stuck = collect(hub, 10_000, () => new Promise(() => undefined));
  const fast = collect(hub);
  hub.publishInit(fakeInit());
  for (let i = 0; i < 100; i++) hub.publishFragment(fakeFragment(i, i % 10 === 0));
  await fast.sub.drained();
  assert.equal(fast.items.length, 101);
  assert.ok(stuck.sub.stats.dropped > 80, `the stuck one drops (dropped ${stuck.sub.stats.dropped})`);
  assert.ok(stuck.sub.stats.queuedBytes <= 10_000, 'and its queue stays bounded');
  assert.equal(hub.counters.dropped.live, stuck.sub.stats.dropped);
});

test('end reaches subscribers once, and a stopped hub offers no init to joiners', async () => {
  const hub = new StreamHub('cam');
  const a = collect(hub);
  hub.publishInit(fakeInit());
  hub.publishFragment(fakeFragment(0, true));
  hub.end('stalled');
  hub.end('stalled');
  await a.sub.drained();
  assert.deepEqual(a.items.map((i) => i.type), ['init', 'fragment', 'end']);
  assert.equal(hub.init, undefined);
  const b = collect(hub);
  await b.sub.drained();
  assert.equal(b.items.length, 0);
});

test('a live viewer arriving makes the producer publish what it holds back first: the viewer gets it once, in order; the recording does not trigger it', async () => {
  const hub = new StreamHub('cam');
  let held: number[] = [];
  let hookCalls = 0;
  hub.beforeLiveJoin(() => {
    hookCalls++;
    for (const n of held) hub.publishFragment(fakeFragment(n, false));
    held = [];
  });
  hub.publishInit(fakeInit());
  hub.publishFragment(fakeFragment(0, true));
  held = [1, 2];
  hub.subscribe({ kind: 'recording', maxQueuedBytes: 1e9, handle: () => undefined });
  assert.equal(hookCalls, 0, 'the recording does not care about held pictures');
  const { items, sub } = collect(hub);
  assert.equal(hookCalls, 1);
  assert.equal(hub.liveViewers, 1);
  hub.publishFragment(fakeFragment(3, false));
  await sub.drained();
  assert.deepEqual(items.flatMap((i) => (i.type === 'fragment' ? [i.fragment.sequenceNumber] : [])), [0, 1, 2, 3]);
});
