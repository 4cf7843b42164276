// WorkQueue: de-duplication, one reconcile per key at a time, re-adds while active, delays and backoff.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { systemClock } from '@vigil/kube';
import { WorkQueue } from '../../src/runtime/workqueue.js';
import { FakeClock } from '../support/fake-clock.js';

test('a key added many times waits once; keys come out in order', async () => {
  const q = new WorkQueue(systemClock);
  q.add('a');
  q.add('b');
  q.add('a');
  assert.equal(q.length, 2);
  assert.equal(await q.get(), 'a');
  assert.equal(await q.get(), 'b');
  q.shutDown();
});

test('a key added while it is being reconciled comes back once, after done()', async () => {
  const q = new WorkQueue(systemClock);
  q.add('a');
  const key = await q.get();
  q.add('a');
  q.add('a');
  assert.equal(q.length, 0, 'not handed to a second worker while active');
  q.done(key!);
  assert.equal(q.length, 1);
  assert.equal(await q.get(), 'a');
  q.done('a');
  assert.equal(q.length, 0);
  q.shutDown();
});

test('a waiting worker gets a key as soon as it is added; shutDown releases waiters', async () => {
  const q = new WorkQueue(systemClock);
  const next = q.get();
  q.add('x');
  assert.equal(await next, 'x');
  const waiting = q.get();
  q.shutDown();
  assert.equal(await waiting, undefined);
});

test('backoff doubles per failure up to the cap and starts over after forget()', async () => {
  const q = new WorkQueue(systemClock, { baseMs: 10, maxMs: 40 });
  assert.deepEqual([q.addRateLimited('k'), q.addRateLimited('k'), q.addRateLimited('k'), q.addRateLimited('k')], [10, 20, 40, 40]);
  q.forget('k');
  assert.equal(q.failuresOf('k'), 0);
  assert.equal(await q.get(), 'k');
  q.shutDown();
});

test('a jittered backoff (after a conflict) is spread over half to all of the plain one', () => {
  const q = new WorkQueue(systemClock, { baseMs: 100, maxMs: 1000 });
  assert.deepEqual([q.addRateLimited('k', () => 0), q.addRateLimited('k', () => 0.5), q.addRateLimited('k', () => 0.999)], [50, 150, 400]);
  q.shutDown();
});

test('addAfter: the key arrives after the delay; the earlier of two delays wins', async () => {
  // On a clock the test moves: a wall-clock bound on a timer fails on a loaded machine (seen: 284 ms for 50).
  const clock = new FakeClock();
  const q = new WorkQueue(clock);
  q.addAfter('k', 200);
  q.addAfter('k', 50);
  await clock.advance(49);
  assert.equal(q.length, 0, 'not before the earlier delay');
  await clock.advance(1);
  assert.equal(q.length, 1, 'at the earlier delay');
  assert.equal(await q.get(), 'k');
  q.done('k');
  await clock.advance(200);
  assert.equal(q.length, 0, 'the later delay was replaced, not kept as well');
  q.shutDown();
});
