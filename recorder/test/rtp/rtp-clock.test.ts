// RTP time: unwrapping 32-bit timestamps, steps back, wall-clock time from a Sender Report, jitter.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { JitterEstimator, RtpClock } from '../../src/rtp/rtp-clock.js';

const WRAP = 2 ** 32;

test('timestamps unwrap across 2^32 into a running tick count', () => {
  const clock = new RtpClock(90000);
  const first = clock.extend(WRAP - 3600);
  assert.equal(clock.extend(0) - first, 3600);
  assert.equal(clock.extend(3600) - first, 7200);
  // Around again, in steps of at most 2^31.
  assert.equal(clock.extend(2 ** 31) - first, 3600 + 2 ** 31);
  assert.equal(clock.extend(WRAP - 3600) - first, WRAP);
  assert.equal(clock.extend(3600) - first, WRAP + 7200);
  assert.equal(clock.backwardSteps, 0);
});

test('a small step back gives the smaller tick count and is counted', () => {
  const clock = new RtpClock(90000);
  const a = clock.extend(10);
  const b = clock.extend(WRAP - 7190);
  assert.equal(b - a, -7200);
  assert.ok(b > 0, 'ticks never go negative');
  assert.equal(clock.steppedBack, true);
  assert.equal(clock.extend(3610) - a, 3600);
  assert.equal(clock.steppedBack, false);
  assert.equal(clock.backwardSteps, 1);
});

test('wall-clock time from the latest Sender Report', () => {
  const clock = new RtpClock(90000);
  const ticks = clock.extend(WRAP - 90000);
  assert.equal(clock.wallClockMs(ticks), undefined);
  // The report's RTP time is 2 s later and past the wrap.
  clock.onSenderReport({ rtpTimestamp: 90000, ntpMs: 1_700_000_000_000 });
  assert.equal(clock.hasSenderReport, true);
  assert.equal(clock.wallClockMs(ticks), 1_700_000_000_000 - 2000);
  assert.equal(clock.wallClockMs(clock.extend(135000)), 1_700_000_000_500);
  clock.reset();
  assert.equal(clock.wallClockMs(ticks), undefined);
});

test('a Sender Report before any packet sets the reference', () => {
  const clock = new RtpClock(48000);
  clock.onSenderReport({ rtpTimestamp: 1000, ntpMs: 5000 });
  assert.equal(clock.wallClockMs(clock.extend(49000)), 6000);
});

test('jitter stays 0 for packets on time and grows with late ones', () => {
  const j = new JitterEstimator(90000);
  for (let i = 0; i < 50; i++) j.update(i * 3600, 1000 + i * 40);
  assert.equal(j.jitter, 0);
  j.update(50 * 3600, 1000 + 50 * 40 + 16);
  // |D| = 16 ms = 1440 ticks, J += (1440 - 0) / 16.
  assert.equal(j.jitter, 90);
});
