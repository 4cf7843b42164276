// The shared write tick: batches that wait are written together, once per tick, and a forgotten writer is not called.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'node:test';
import { WriteScheduler } from '../../src/recording/write-scheduler.js';

test('writers that have bytes waiting are called together at the next tick, each once; a forgotten one is not', async () => {
  const scheduler = new WriteScheduler({ periodMs: 30 });
  const calls: string[] = [];
  const writer = (name: string) => ({ writeDue: () => calls.push(name) });
  const a = writer('a');
  const b = writer('b');
  const c = writer('c');
  scheduler.writeWaiting(a);
  await sleep(10);
  scheduler.writeWaiting(b);
  scheduler.writeWaiting(a);
  scheduler.writeWaiting(c);
  scheduler.forget(c);
  assert.deepEqual(calls, [], 'nothing before the tick');
  await sleep(60);
  assert.deepEqual(calls.sort(), ['a', 'b'], 'a and b in one tick, a once although it enlisted twice');
  assert.equal(scheduler.ticks, 1);
  await sleep(60);
  assert.equal(scheduler.ticks, 1, 'no tick without a writer waiting');
  scheduler.writeWaiting(b);
  await sleep(60);
  assert.deepEqual(calls.sort(), ['a', 'b', 'b']);
  assert.throws(() => new WriteScheduler({ periodMs: 0 }), RangeError);
});
