// Range header parsing for downloads.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseByteRange } from '../../src/http/byte-range.js';

test('single byte ranges: a-b, a-, -n; outside the file is unsatisfiable; other forms get the whole file', () => {
  assert.deepEqual(parseByteRange('bytes=0-99', 1000), { kind: 'range', start: 0, end: 99 });
  assert.deepEqual(parseByteRange('bytes=900-', 1000), { kind: 'range', start: 900, end: 999 });
  assert.deepEqual(parseByteRange('bytes=-100', 1000), { kind: 'range', start: 900, end: 999 });
  assert.deepEqual(parseByteRange('bytes=990-5000', 1000), { kind: 'range', start: 990, end: 999 });
  assert.deepEqual(parseByteRange('bytes=1000-', 1000), { kind: 'unsatisfiable' });
  assert.deepEqual(parseByteRange('bytes=50-10', 1000), { kind: 'unsatisfiable' });
  assert.deepEqual(parseByteRange('bytes=-0', 1000), { kind: 'unsatisfiable' });
  assert.deepEqual(parseByteRange('bytes=0-1,5-9', 1000), { kind: 'none' });
  assert.deepEqual(parseByteRange('items=0-1', 1000), { kind: 'none' });
  assert.deepEqual(parseByteRange(undefined, 1000), { kind: 'none' });
});
