// Restart delays double from 1 s to 30 s and start over after a healthy run.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Backoff } from '../../src/ingest/backoff.js';

test('delays go 1, 2, 4, 8, 16, 30, 30 s and reset to 1 s', () => {
  const b = new Backoff();
  assert.deepEqual([1, 2, 3, 4, 5, 6, 7].map(() => b.take()), [1000, 2000, 4000, 8000, 16000, 30000, 30000]);
  b.reset();
  assert.equal(b.take(), 1000);
});
