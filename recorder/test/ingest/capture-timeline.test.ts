// Segment-name times on one timeline: arrival before the first sender report, capture time plus the delay after it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CaptureTimeline } from '../../src/ingest/capture-timeline.js';

test('before a sender report the arrival time; after it, capture plus the smallest delay seen, with no jump', () => {
  const t = new CaptureTimeline();
  const arrival = 1_700_000_000_000;
  assert.equal(t.timeOf(undefined, arrival), arrival);
  // The encoder delays pictures by 1.2 s; reads add 0–100 ms of jitter.
  const named = [0, 40, 80, 120].map((ms, i) => t.timeOf(arrival + ms - 1200, arrival + ms + [60, 10, 90, 30][i]!));
  // The estimate drops to the 10 ms sample at once and then barely rises: names are capture + ~1210, 40 ms apart
  // however late each read was.
  const steps = named.slice(2).map((n, i) => n - (named[i + 1] as number));
  for (const step of steps) assert.ok(Math.abs(step - 40) < 0.5, `pictures 40 ms apart are named ${step} ms apart`);
  assert.ok(Math.abs((named[3] as number) - (arrival + 120 + 10)) < 0.5);
  assert.equal(t.steps, 0);
});

test('a camera clock that slowly loses time is followed; a step of more than 2 s starts over', () => {
  const t = new CaptureTimeline();
  const start = 1_700_000_000_000;
  let named = 0;
  // The delay grows by 200 ms over 5000 pictures (the camera clock runs slow): the names follow most of it.
  for (let i = 0; i <= 5000; i++) named = t.timeOf(start + i * 40 - 500 - (200 * i) / 5000, start + i * 40);
  const arrival = start + 5000 * 40;
  assert.ok(arrival - named < 100, `named ${arrival - named} ms before arrival`);
  assert.ok(arrival - named >= 0);
  // The camera's clock is set back an hour: names go on from the arrival, once counted.
  assert.equal(t.timeOf(arrival + 40 - 3_600_000, arrival + 40), arrival + 40);
  assert.equal(t.steps, 1);
});
