// forEachSliced: a long pass over many objects lets the event loop run between its slices, so a timer that is due (a
// leader's Lease renewal) fires during the pass, not after it; every item is seen once, in order; an abort stops it.
// PrioritySlots: never more sections in flight than its capacity, and a freed slot goes to an urgent section first.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { forEachSliced, PrioritySlots } from '../src/api/concurrency.js';

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

test('slots: never more in flight than the capacity, a freed slot goes to the urgent waiters first, and a failing section frees its slot', async () => {
  const slots = new PrioritySlots(2);
  const started: string[] = [];
  let inFlight = 0;
  let most = 0;
  const gates = new Map<string, () => void>();
  const section = (name: string, fail = false) => () => new Promise<string>((resolve, reject) => {
    started.push(name);
    most = Math.max(most, ++inFlight);
    gates.set(name, () => {
      inFlight--;
      if (fail) reject(new Error(name));
      else resolve(name);
    });
  });
  const tick = () => new Promise<void>((r) => setImmediate(r));
  const done = [
    slots.run(false, section('r1', true)), slots.run(false, section('r2')),
    // Both slots are taken: these wait, the routine ones asked first.
    slots.run(false, section('r3')), slots.run(false, section('r4')), slots.run(true, section('u1')), slots.run(true, section('u2')),
  ];
  const results = Promise.allSettled(done);
  await tick();
  assert.deepEqual(started, ['r1', 'r2']);
  assert.equal(slots.busy, 6);
  gates.get('r1')!();
  await tick();
  assert.deepEqual(started, ['r1', 'r2', 'u1'], 'the freed slot went to the first urgent section, not the routine ones asked before it');
  gates.get('r2')!();
  gates.get('u1')!();
  await tick();
  assert.deepEqual(started.slice(3), ['u2', 'r3']);
  gates.get('u2')!();
  gates.get('r3')!();
  await tick();
  gates.get('r4')!();
  assert.equal(most, 2);
  assert.deepEqual((await results).map((r) => r.status), ['rejected', 'fulfilled', 'fulfilled', 'fulfilled', 'fulfilled', 'fulfilled']);
  assert.equal(slots.busy, 0);
});
