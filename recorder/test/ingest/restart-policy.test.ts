// The restart policy: backoff for cameras that fail, fast and bounded asking for a server without its stream yet, no waiting for a stream that ended.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  answersWithoutStream,
  FRESH_RESTART_STATE,
  NO_STREAM_FAST_FOR_MS,
  planRestart,
  type RestartState,
  type RunEndKind,
} from '../../src/ingest/restart-policy.js';

/** The delays of a sequence of run ends at the given times (ms), from a fresh state. */
function delays(ends: Array<[RunEndKind, number]>, from: RestartState = FRESH_RESTART_STATE): number[] {
  let state = from;
  return ends.map(([kind, now]) => {
    const plan = planRestart(state, kind, now);
    state = plan.state;
    return plan.delayMs;
  });
}

test('a camera that answers and fails waits 1, 2, 4, 8, 16, 30, 30 s; after a healthy run (a fresh state) 1 s again', () => {
  assert.deepEqual(delays([1, 2, 3, 4, 5, 6, 7].map((i) => ['failed', i])), [1000, 2000, 4000, 8000, 16000, 30000, 30000]);
  assert.deepEqual(delays([['failed', 0]]), [1000]);
});

test('refused credentials wait the longest delay from the first refusal, and count as a failure', () => {
  assert.deepEqual(delays([['auth-refused', 0], ['failed', 1]]), [30000, 2000]);
});

test('a server that answers without a stream is asked again every 0.5 s, then every 2 s after 5 minutes of it; the backoff does not grow', () => {
  const fast = delays([['no-stream-yet', 0], ['no-stream-yet', 500], ['no-stream-yet', 60_000], ['no-stream-yet', NO_STREAM_FAST_FOR_MS - 1]]);
  assert.deepEqual(fast, [500, 500, 500, 500]);
  assert.deepEqual(delays([['no-stream-yet', 0], ['no-stream-yet', NO_STREAM_FAST_FOR_MS], ['no-stream-yet', NO_STREAM_FAST_FOR_MS * 10]]), [500, 2000, 2000]);
  // Forty answers without a stream, then a failure: the failure backoff starts where it was (1 s), not at 30 s.
  const ends: Array<[RunEndKind, number]> = Array.from({ length: 40 }, (_, i) => ['no-stream-yet', i * 500]);
  assert.deepEqual(delays([...ends, ['failed', 20_000]]).slice(-2), [500, 1000]);
});

test('after a failure in between, a server without a stream is asked fast again for another 5 minutes', () => {
  const start: Array<[RunEndKind, number]> = [['no-stream-yet', 0], ['no-stream-yet', NO_STREAM_FAST_FOR_MS]];
  assert.deepEqual(delays([...start, ['failed', NO_STREAM_FAST_FOR_MS + 1], ['no-stream-yet', NO_STREAM_FAST_FOR_MS + 2]]), [500, 2000, 1000, 500]);
});

test('a stream that ended starts again at once; a camera that does not accept connections is probed; neither grows the backoff', () => {
  const grown = planRestart(planRestart(FRESH_RESTART_STATE, 'failed', 0).state, 'failed', 1).state;
  assert.deepEqual(planRestart(grown, 'at-once', 2), { state: grown, delayMs: 0, probe: false });
  assert.deepEqual(planRestart(grown, 'down', 2), { state: grown, delayMs: 0, probe: true });
  assert.equal(planRestart(grown, 'failed', 3).delayMs, 4000);
});

test('404, 500, 502, 503 and 504 to DESCRIBE mean "no stream yet"; a refusal or a bad request does not', () => {
  assert.deepEqual([404, 500, 502, 503, 504].map(answersWithoutStream), [true, true, true, true, true]);
  assert.deepEqual([400, 401, 403, 454, 461].map(answersWithoutStream), [false, false, false, false, false]);
});
