// How a node paces its cameras' status reports: never more than a few in flight, never two for one camera, and a
// report that failed waits longer after each failure (jittered, capped) before it is sent again; a success or the
// camera leaving the node forgets the failures.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ReportPacing } from '../../src/cluster/report-pacing.js';

test('at most the limit in flight, one per camera; a slot freed by an answer is taken again', () => {
  const pacing = new ReportPacing(2, () => 0.5);
  assert.equal(pacing.mayStart('a', 0), true);
  pacing.started('a');
  assert.equal(pacing.mayStart('a', 0), false, 'a second report of the same camera waits for the first');
  pacing.started('b');
  assert.equal(pacing.mayStart('c', 0), false, 'both slots taken');
  pacing.succeeded('a');
  assert.equal(pacing.mayStart('c', 0), true);
});

test('a failed report waits, longer after each failure up to 30 s, and a success starts over', () => {
  // The largest wait the jitter allows each time (random just below 1).
  const pacing = new ReportPacing(4, () => 0.999);
  const waits: number[] = [];
  let now = 0;
  for (let i = 0; i < 7; i++) {
    pacing.started('a');
    const wait = pacing.failed('a', now);
    assert.equal(pacing.mayStart('a', now + wait - 1), false, `not before its wait (${wait} ms) has passed`);
    assert.equal(pacing.mayStart('a', now + wait), true);
    waits.push(wait);
    now += wait;
  }
  assert.deepEqual(waits.map((w) => Math.round(w / 100) * 100), [2500, 4500, 8500, 16500, 30500, 30500, 30500]);
  pacing.started('a');
  pacing.succeeded('a');
  pacing.started('a');
  assert.equal(Math.round(pacing.failed('a', now) / 100) * 100, 2500, 'the first failure after a success waits as little as the first ever');
});

test('the jitter spreads the retries of many cameras that failed together', () => {
  let seed = 7;
  const random = () => ((seed = (seed * 16807) % 2147483647) / 2147483647);
  const pacing = new ReportPacing(100, random);
  const waits = Array.from({ length: 100 }, (_, i) => {
    pacing.started(`c${i}`);
    return pacing.failed(`c${i}`, 0);
  });
  assert.ok(Math.min(...waits) >= 500 && Math.max(...waits) <= 2500);
  assert.ok(new Set(waits.map((w) => Math.floor(w / 250))).size >= 6, 'retries are spread over the window, not sent together');
});

test('a camera that left the node is forgotten', () => {
  const pacing = new ReportPacing(4, () => 0.5);
  pacing.started('a');
  pacing.failed('a', 0);
  assert.deepEqual([...pacing.waiting], ['a']);
  pacing.forget('a');
  assert.deepEqual([...pacing.waiting], []);
  assert.equal(pacing.mayStart('a', 0), true);
});
