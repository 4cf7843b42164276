// The release CA's rotation over its ten years, as a plan: a next CA a year before the end, trusted beside the current
// one, signing a day after the bundle holding it was published, the old one trusted until it ends, then dropped.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CA_DISTRIBUTION_MS, CA_ROTATE_BEFORE_MS, caBundle, planCaRotation, type CaRotationState } from '../../src/desired/ca-rotation.js';

const DAY = 86_400_000;
const YEAR = 365 * DAY;
const start = Date.parse('2026-01-01T00:00:00Z');
const ca = (name: string, from: number) => ({ pem: `-----BEGIN CERTIFICATE-----\n${name}\n-----END CERTIFICATE-----\n`, notBefore: from, notAfter: from + 10 * YEAR });

test('a CA the operator made is rotated: next made a year before its end, switched after a day in the bundle, the old one trusted until it ends', () => {
  const first = ca('first', start);
  let state: CaRotationState = { current: first, madeByOperator: true };
  // Nine years on: nothing to do, and it says when to look again.
  const quiet = planCaRotation(state, start + 8 * YEAR);
  assert.equal(quiet.action, 'none');
  assert.equal(quiet.action === 'none' && quiet.recheckAt, first.notAfter - CA_ROTATE_BEFORE_MS);
  const at = first.notAfter - CA_ROTATE_BEFORE_MS;
  assert.equal(planCaRotation(state, at).action, 'make-next');

  const second = ca('second', at);
  state = { ...state, next: second };
  assert.equal(planCaRotation(state, at).action, 'none', 'not signing before the bundle holding it is out');
  assert.equal(caBundle(state, at).match(/BEGIN CERTIFICATE/g)?.length, 2, 'both trusted');
  state = { ...state, next: { ...second, publishedAt: at } };
  assert.equal(planCaRotation(state, at + CA_DISTRIBUTION_MS - 1).action, 'none');
  assert.equal(planCaRotation(state, at + CA_DISTRIBUTION_MS).action, 'switch');

  // Switched: the second signs, the first is still trusted (what it signed serves until renewed) until it ends.
  state = { current: second, madeByOperator: true, previous: first };
  const afterSwitch = at + CA_DISTRIBUTION_MS;
  assert.match(caBundle(state, afterSwitch), /second[\s\S]*first/);
  const waiting = planCaRotation(state, afterSwitch);
  assert.equal(waiting.action === 'none' && waiting.recheckAt, first.notAfter);
  assert.equal(planCaRotation(state, first.notAfter).action, 'drop-previous');
  assert.equal(caBundle(state, first.notAfter).match(/BEGIN CERTIFICATE/g)?.length, 1, 'an ended CA is not trusted');
  assert.equal(planCaRotation({ current: second, madeByOperator: true, next: { ...second, publishedAt: at } }, afterSwitch).action, 'forget-next', 'a switch cut short after its first write is finished');
});

test('a CA you brought is not replaced by one the operator makes; a next CA you bring is rotated to the same way', () => {
  const yours = ca('yours', start);
  const late = yours.notAfter - 30 * DAY;
  assert.equal(planCaRotation({ current: yours, madeByOperator: false }, late).action, 'none');
  const next = { ...ca('your-next', late), publishedAt: late };
  assert.equal(planCaRotation({ current: yours, madeByOperator: false, next }, late + CA_DISTRIBUTION_MS).action, 'switch');
});
