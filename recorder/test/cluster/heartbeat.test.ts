// The heartbeat at scale: one request per renewal (the Lease as the last renewal wrote it is replaced without reading
// it first, as the kubelet renews its node Lease); a write by someone else in between costs one read, not a beat.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Resources, fromApiTime, type Lease } from '@vigil/kube';
import { auditedRequests } from '@vigil/testing/kube/control-plane/audit-log';
import { waitUntil } from '@vigil/testing/processes';
import { nodeUnderTest } from '../support/cluster-view-fixture.js';

test('renewals replace the Lease they last wrote: one read for the first, one after another writer, none else', async (t) => {
  const n = await nodeUnderTest(t, 'node-a');
  const ns = n.cluster.namespace;
  const lease = () => n.admin.get<Lease>(Resources.leases, ns, 'vigil-node-node-a');
  const from = Date.now();
  n.heartbeat.start();
  t.after(() => n.heartbeat.stop());
  await waitUntil(async () => (await lease())?.spec?.renewTime !== undefined, 10_000, 'the first renewal', 100);
  // Another writer (the operator, or the node's own membership request) changes the Lease between two renewals.
  const current = (await lease())!;
  await n.admin.replace(Resources.leases, { ...current, metadata: { ...current.metadata, annotations: { ...current.metadata.annotations, 'example.com/touched': 'yes' } } });
  await new Promise((r) => setTimeout(r, 9000));
  const last = fromApiTime((await lease())?.spec?.renewTime ?? undefined) ?? 0;
  assert.ok(Date.now() - last < 4500, 'still renewed every 2 s after the other write');
  assert.equal((await lease())?.metadata.annotations?.['example.com/touched'], 'yes', 'the other writer\'s annotation kept');
  await new Promise((r) => setTimeout(r, 1000)); // the audit log is written as requests complete
  const mine = (await auditedRequests(n.cluster.controlPlane.auditLogPath, from, Date.now())).filter((r) => r.user === `system:serviceaccount:${ns}:vigil-recorder-node-a` && r.target.startsWith('leases'));
  const count = (verb: string) => mine.filter((r) => r.verb === verb).length;
  assert.ok(count('update') >= 4, `renewals: ${count('update')}`);
  // The first renewal reads; the one after the other write meets a 409 and reads again. Nothing else reads.
  assert.ok(count('get') <= 2, `reads of the Lease: ${count('get')} for ${count('update')} renewals`);
});
