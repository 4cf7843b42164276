// The concat list's per-file duration: where the next file's zero goes so its first picture follows this file's last.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { joinDuration } from '../../src/jobs/export-plan.js';

test('the next file starts where this file\'s video ends, less its inpoint and the next file\'s audio lead', () => {
  // This file's pictures run 0.05–2.05 s of its time; the next file's first picture is 0.06 s after its zero.
  assert.equal(joinDuration({ start: 0.05, end: 2.05 }, { start: 0.06, end: 2.06 }, 0)?.toFixed(6), '1.990000');
  // Cut at 1.2 s (the first file of a window): the rest of it, 0.85 s, less the lead.
  assert.equal(joinDuration({ start: 0.05, end: 2.05 }, { start: 0.06, end: 2.06 }, 1.2)?.toFixed(6), '0.790000');
});

test('without both spans, or when they make no sense, ffmpeg keeps its own duration', () => {
  assert.equal(joinDuration(undefined, { start: 0, end: 2 }, 0), undefined);
  assert.equal(joinDuration({ start: 0, end: 2 }, undefined, 0), undefined);
  assert.equal(joinDuration({ start: 0, end: 2 }, { start: 0, end: 2 }, 2.5), undefined);
  assert.equal(joinDuration({ start: 0, end: Number.NaN }, { start: 0, end: 2 }, 0), undefined);
});
