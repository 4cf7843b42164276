// Readiness check `tls`: passes until 7 days before the served certificate's end, then fails (and after the end too).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TLS_EXPIRY_MARGIN_MS, tlsCheck } from '../../src/health/tls-check.js';

const DAY = 86_400_000;

test('fails from seven days before notAfter, reads the served certificate at every probe, passes without tls', async () => {
  const now = Date.UTC(2026, 10, 1);
  let notAfter = new Date(now + 7 * DAY + 1000);
  const check = tlsCheck({ notAfter: () => notAfter }, () => now);
  assert.equal(check.name, 'tls');
  assert.equal(TLS_EXPIRY_MARGIN_MS, 7 * DAY);
  assert.deepEqual(await check.probe(), { ok: true, detail: { configured: true, not_after: notAfter.toISOString(), expiring: false } });
  notAfter = new Date(now + 7 * DAY);
  assert.deepEqual(await check.probe(), { ok: false, detail: { configured: true, not_after: notAfter.toISOString(), expiring: true } });
  notAfter = new Date(now - DAY);
  assert.equal((await check.probe()).ok, false, 'an expired certificate fails too');
  notAfter = new Date(now + 90 * DAY);
  assert.equal((await check.probe()).ok, true, 'a renewed certificate counts at the next probe');
  assert.deepEqual(await tlsCheck(undefined, () => now).probe(), { ok: true, detail: { configured: false } });
});
