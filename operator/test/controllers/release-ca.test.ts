// The release CA controller over ten simulated years, against kube-apiserver as the operator's ServiceAccount: the CA is
// made and published; a year before its end a next CA joins the trust bundle, signs a day later, and the old one stays
// trusted until it ends, then is dropped; each step with the operator's own RBAC.
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { test } from 'node:test';
import { CA_BUNDLE_KEY } from '@vigil/crds';
import { Resources, type ConfigMap, type Secret } from '@vigil/kube';
import { SETTINGS_YAML } from '@vigil/testing/kube/test-cluster';
import { parse } from 'yaml';
import { parseSettings } from '../../src/config/settings.js';
import { readReleaseCa, reconcileReleaseCaFor } from '../../src/controllers/release-ca.js';
import { FakeClock } from '../support/fake-clock.js';
import { inProcessOperator } from '../support/in-process.js';

const DAY = 86_400_000;

test('the release CA is rotated with a two-CA trust bundle: next CA trusted first, signing after a day, the old one trusted until its end', async (t) => {
  const { ctx, admin, signal, cluster } = await inProcessOperator(t);
  const ns = cluster.namespace;
  const clock = new FakeClock(Date.now());
  const rctx = { ...ctx, clock, settings: parseSettings(parse(`${SETTINGS_YAML}tls:\n  certificateLifetimeSeconds: 86400\n`)) };
  const reconcile = reconcileReleaseCaFor(rctx);
  /** Runs passes until the controller only waits (a step asks for the next pass within a second). */
  const settle = async () => {
    for (let i = 0; i < 10; i++) {
      const result = await reconcile('release-ca', signal);
      if (!result || (result.requeueAfterMs ?? 0) > 1000) return;
    }
    assert.fail('the release CA controller did not settle');
  };
  const secret = async (name: string) => admin.get<Secret>(Resources.secrets, ns, name);
  const pemOf = (s: Secret | undefined, key = 'tls.crt') => Buffer.from(s?.data?.[key] ?? '', 'base64').toString('utf8');
  const bundle = async () => ((await admin.get<ConfigMap>(Resources.configMaps, ns, 'vigil-ca'))?.data?.[CA_BUNDLE_KEY] ?? '');
  const count = (pems: string) => pems.match(/BEGIN CERTIFICATE/g)?.length ?? 0;
  const signer = async () => {
    const ca = await readReleaseCa(rctx, signal);
    assert.ok(ca !== undefined && !(ca instanceof Error));
    return ca.certPem;
  };

  await settle();
  const first = pemOf(await secret('vigil-ca'));
  assert.equal(await bundle(), first, 'one CA, published');
  const firstEnd = Date.parse(new X509Certificate(first).validTo);

  // Nine years and a day on: a next CA, in the bundle beside the first, which still signs.
  await clock.advance(firstEnd - 364 * DAY - clock.now());
  await settle();
  const next = await secret('vigil-ca-next');
  const second = pemOf(next);
  assert.match(second, /BEGIN CERTIFICATE/);
  assert.equal(count(await bundle()), 2);
  assert.ok((await bundle()).includes(second.trim()) && (await bundle()).includes(first.trim()));
  assert.equal(await signer(), first, 'the first CA signs until the bundle has been out a day');
  assert.ok(next?.metadata.annotations?.['vigil.io/published-at'], 'the publication time is kept');

  // A day later: the second signs; the first stays trusted; the next Secret is gone.
  await clock.advance(DAY);
  await settle();
  assert.equal(await signer(), second);
  assert.equal(pemOf(await secret('vigil-ca'), 'previous.crt'), first);
  assert.equal(await secret('vigil-ca-next'), undefined);
  assert.equal(count(await bundle()), 2);

  // Past the first CA's end: dropped from the bundle and the Secret.
  await clock.advance(firstEnd + 1000 - clock.now());
  await settle();
  assert.equal((await bundle()).trim(), second.trim());
  assert.equal((await secret('vigil-ca'))?.data?.['previous.crt'], undefined);
});
