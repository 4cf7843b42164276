// forEachSliced: a long pass over many objects lets the event loop run between its slices, so a timer that is due (a
// leader's Lease renewal) fires during the pass, not after it; every item is seen once, in order; an abort stops it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { forEachSliced } from '../src/api/concurrency.js';

test('a timer due during a long pass fires between its slices, and every item is seen once in order', async () => {
  const items = Array.from({ length: 1000 }, (_, i) => i);
  const seen: number[] = [];
  let firedAt: number | undefined;
  setTimeout(() => (firedAt = seen.length), 0);
  // Each item takes a little CPU, so that the timer is due well before the pass ends.
  const busy = (ms: number) => {
    const until = performance.now() + ms;
    while (performance.now() < until);
  };
  await forEachSliced(items, 100, new AbortController().signal, (i) => {
    busy(0.05);
    seen.push(i);
  });
  assert.deepEqual(seen, items);
  assert.ok(firedAt !== undefined && firedAt > 0 && firedAt < items.length, `the timer fired between slices (after ${firedAt} of ${items.length})`);
  assert.equal(firedAt % 100, 0, 'at a slice boundary');
});

test('an abort stops the pass at the next slice', async () => {
  const stop = new AbortController();
  const seen: number[] = [];
  await forEachSliced(Array.from({ length: 500 }, (_, i) => i), 100, stop.signal, (i) => {
    seen.push(i);
    if (i === 150) stop.abort();
  });
  assert.equal(seen.length, 200, 'the slice under way ends; no other starts');
});
