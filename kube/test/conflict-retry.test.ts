// retryOnConflict: a 409 is tried again after a jittered, growing wait on the caller's clock; anything else is not.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiError, conflictBackoffMs, retryOnConflict, type Clock } from '../src/index.js';

/** A clock that records the sleeps asked of it and returns at once. */
function recordingClock(): Clock & { slept: number[] } {
  const slept: number[] = [];
  return { slept, now: () => 0, sleep: async (ms) => void slept.push(ms) };
}

const conflict = () => new ApiError(409, 'Conflict', 'the object has been modified');

test('conflicts are retried after growing, jittered waits until the write succeeds', async () => {
  const clock = recordingClock();
  let calls = 0;
  const result = await retryOnConflict(async (n) => {
    calls++;
    if (n < 4) throw conflict();
    return 'written';
  }, { clock, attempts: 5, baseMs: 100, maxMs: 1000, random: () => 0.5 });
  assert.equal(result, 'written');
  assert.equal(calls, 4);
  assert.deepEqual(clock.slept, [50, 100, 200]);
});

test('the waits are capped and spread over [0, cap) by the random draw', () => {
  assert.equal(conflictBackoffMs(10, 100, 1000, () => 0.999), 999);
  assert.equal(conflictBackoffMs(1, 100, 1000, () => 0), 0);
  assert.equal(conflictBackoffMs(2, 100, 1000, () => 0.5), 100);
});

test('the last conflict is thrown once the attempts are used up; other errors at once', async () => {
  const clock = recordingClock();
  await assert.rejects(retryOnConflict(async () => { throw conflict(); }, { clock, attempts: 3 }), (err: unknown) => err instanceof ApiError && err.status === 409);
  assert.equal(clock.slept.length, 2);
  const other = recordingClock();
  await assert.rejects(retryOnConflict(async () => { throw new ApiError(403, 'Forbidden', 'no'); }, { clock: other }), /no/);
  assert.deepEqual(other.slept, []);
});
