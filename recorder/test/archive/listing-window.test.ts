// The listing window rules: defaults, one-sided bounds, the 25-hour limit, and 400s that name the parameter.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ListingQueryError } from '../../src/archive/archive-errors.js';
import { fixedOffsetClock } from '../../src/archive/day-clock.js';
import { resolveListingWindow } from '../../src/archive/listing-window.js';

const NOW = Date.UTC(2026, 10, 22, 22, 30, 0); // 22:30 UTC
const utc = fixedOffsetClock(0);

function fails(query: Record<string, string>, kind: string, parameter: string): void {
  assert.throws(
    () => resolveListingWindow(query, NOW, utc),
    (err: unknown) => err instanceof ListingQueryError && err.kind === kind && err.parameter === parameter && err.message.includes(parameter === 'to' || parameter === 'from' ? '' : parameter),
    JSON.stringify(query),
  );
}

test('no bounds: today on the node clock, or on the viewer clock with tz_offset_minutes', () => {
  const w = resolveListingWindow({}, NOW, utc);
  assert.deepEqual([w.fromMs, w.toMs], [Date.UTC(2026, 10, 22), Date.UTC(2026, 10, 23)]);
  // 22:30 UTC is already 01:30 on the 23rd at UTC+3.
  const east = resolveListingWindow({ tz_offset_minutes: '180' }, NOW, utc);
  assert.deepEqual([east.fromMs, east.toMs], [Date.UTC(2026, 10, 22, 21), Date.UTC(2026, 10, 23, 21)]);
  const west = resolveListingWindow({ tz_offset_minutes: '-570' }, NOW, utc);
  assert.deepEqual([west.fromMs, west.toMs], [Date.UTC(2026, 10, 22, 9, 30), Date.UTC(2026, 10, 23, 9, 30)]);
});

test('only from: the day starting at from; only to: the day up to to; both: as given', () => {
  const from = 1_800_000_000;
  assert.deepEqual(Object.values(resolveListingWindow({ from: String(from) }, NOW, utc)).slice(0, 2), [from * 1000, (from + 86_400) * 1000]);
  assert.deepEqual(Object.values(resolveListingWindow({ to: String(from) }, NOW, utc)).slice(0, 2), [(from - 86_400) * 1000, from * 1000]);
  assert.deepEqual(Object.values(resolveListingWindow({ from: '100', to: '200' }, NOW, utc)).slice(0, 2), [100_000, 200_000]);
  assert.equal(resolveListingWindow({ from: '0', to: String(25 * 3600) }, NOW, utc).toMs, 25 * 3600 * 1000, '25 hours exactly is allowed');
});

test('400 cases name the parameter', () => {
  fails({ from: 'yesterday' }, 'invalid_parameter', 'from');
  fails({ from: '1.5' }, 'invalid_parameter', 'from');
  fails({ to: '1e9' }, 'invalid_parameter', 'to');
  fails({ to: '' }, 'invalid_parameter', 'to');
  fails({ tz_offset_minutes: '60.5' }, 'invalid_parameter', 'tz_offset_minutes');
  fails({ tz_offset_minutes: '841' }, 'invalid_parameter', 'tz_offset_minutes');
  fails({ tz_offset_minutes: '-841' }, 'invalid_parameter', 'tz_offset_minutes');
  fails({ from: '200', to: '100' }, 'invalid_window', 'from');
  fails({ from: '0', to: String(25 * 3600 + 1) }, 'invalid_window', 'to');
  assert.equal(resolveListingWindow({ tz_offset_minutes: '840' }, NOW, utc).clockKey, 'utc840');
  assert.equal(resolveListingWindow({ tz_offset_minutes: '-840' }, NOW, utc).clockKey, 'utc-840');
});
