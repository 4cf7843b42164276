// Readiness check `tls`: fails only when the API cannot serve (a provisional certificate, or one that has ended); near
// its end the certificate is reported as expiring (detail, hook for the log) while readiness still passes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { tlsCheck } from '../../src/health/tls-check.js';

const DAY = 86_400_000;

test('a certificate within 7 days of its end still serves: readiness passes and reports it expiring; an ended one fails', async () => {
  const now = Date.UTC(2026, 10, 1);
  let notAfter = new Date(now + 7 * DAY + 1000);
  const expiring: string[] = [];
  const expired: string[] = [];
  const check = tlsCheck({ notAfter: () => notAfter }, () => now, { onExpiring: (d) => expiring.push(d.toISOString()), onExpired: (d) => expired.push(d.toISOString()) });
  assert.equal(check.name, 'tls');
  assert.deepEqual(await check.probe(), { ok: true, detail: { configured: true, not_after: notAfter.toISOString(), expiring: false, expired: false } });
  notAfter = new Date(now + 7 * DAY);
  assert.deepEqual(await check.probe(), { ok: true, detail: { configured: true, not_after: notAfter.toISOString(), expiring: true, expired: false } });
  notAfter = new Date(now + 1000);
  assert.equal((await check.probe()).ok, true, 'one second left: it still serves');
  assert.deepEqual(expiring, [new Date(now + 7 * DAY).toISOString(), new Date(now + 1000).toISOString()]);
  notAfter = new Date(now - DAY);
  assert.deepEqual(await check.probe(), { ok: false, detail: { configured: true, not_after: notAfter.toISOString(), expiring: true, expired: true } });
  assert.deepEqual(expired, [notAfter.toISOString()]);
  notAfter = new Date(now + 90 * DAY);
  assert.deepEqual((await check.probe()).detail, { configured: true, not_after: notAfter.toISOString(), expiring: false, expired: false }, 'a renewed certificate counts at the next probe');
  assert.deepEqual(await tlsCheck(undefined, () => now).probe(), { ok: true, detail: { configured: false } });
});

test('a short-lived node certificate is expiring only in its last sixth; a node waiting for its own fails', async () => {
  const now = Date.UTC(2026, 10, 1);
  const oneDay = (leftMs: number) => ({ notBefore: () => new Date(now + leftMs - DAY), notAfter: () => new Date(now + leftMs) });
  assert.deepEqual((await tlsCheck(oneDay(DAY / 6 + 1000), () => now).probe()).detail, { configured: true, not_after: new Date(now + DAY / 6 + 1000).toISOString(), expiring: false, expired: false });
  assert.equal(((await tlsCheck(oneDay(DAY / 6), () => now).probe()).detail as { expiring: boolean }).expiring, true);
  const waiting = await tlsCheck({ notAfter: () => new Date(now + DAY), waiting: () => 'CertificateSigningRequest x waits for approval' }, () => now).probe();
  assert.deepEqual(waiting, { ok: false, detail: { configured: true, waiting: 'CertificateSigningRequest x waits for approval' } });
});
