// GET /cluster/metrics as a recorder computes it: the leader while its Lease is valid, each node online by the
// operator's silence rule (published on its Lease), quorum over the members, and what each node reports.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Resources, toMicroTime, type Lease } from '@vigil/kube';
import { waitUntil } from '@vigil/testing/processes';
import { ClusterLookups } from '../../src/cluster/cluster-lookups.js';
import { clusterMetrics } from '../../src/cluster/cluster-metrics.js';
import { systemClock } from '../../src/util/clock.js';
import { nodeUnderTest } from '../support/cluster-view-fixture.js';

test('leader, quorum and nodes follow the Leases and the operator\'s silence rule', async (t) => {
  const n = await nodeUnderTest(t, 'node-a');
  const now = Date.now();
  await n.recorderNode('node-a', { status: { url: 'http://a.status:9997', version: '0.9.0', cameras: 7 } });
  await n.recorderNode('node-b', { status: { url: 'http://b.status:9997', version: '1.0.0', cameras: 2 } });
  await n.recorderNode('node-c', { member: false });
  await n.lease('node-a', now - 1000, { 'vigil.io/url': 'http://a.reported:9997', 'vigil.io/version': '1.1.0', 'vigil.io/cameras': '3' });
  await n.lease('node-b', now - 10_000);
  const operatorLease = (renewMs: number, silence?: string): Lease => ({
    apiVersion: 'coordination.k8s.io/v1', kind: 'Lease',
    metadata: { name: 'vigil-operator', namespace: n.cluster.namespace, ...(silence ? { annotations: { 'vigil.io/node-silence-seconds': silence } } : {}) },
    spec: { holderIdentity: 'op-1', leaseDurationSeconds: 6, renewTime: toMicroTime(renewMs) },
  });
  await n.admin.create(Resources.leases, operatorLease(now));
  await n.until(() => n.view.recorderNodes.list().length === 3, 'the view');

  // No silence rule published: 15 s. node-b (10 s silent) is online; 2 of 2 members.
  // Fresh reads each time (a recorder's answers are up to 2 s old).
  const metrics = (at: number) => clusterMetrics(n.view, new ClusterLookups(n.client, n.cluster.namespace, systemClock), () => at);
  let m = await metrics(now);
  assert.equal(m.leader, 'op-1');
  assert.equal(m.quorum, true);
  assert.deepEqual(m.nodes.map((x) => [x.node_name, x.online, x.member, x.url, x.version, x.cameras]), [
    ['node-a', true, true, 'http://a.reported:9997', '1.1.0', 3],
    ['node-b', true, true, 'http://b.status:9997', '1.0.0', 2],
    ['node-c', false, false, null, null, 0],
  ]);
  assert.equal(m.nodes[1]?.last_heartbeat, now - 10_000);

  // The operator runs with --node-silence 6s: node-b is offline, 1 of 2 members is no quorum.
  const current = await n.admin.get<Lease>(Resources.leases, n.cluster.namespace, 'vigil-operator');
  await n.admin.replace(Resources.leases, { ...operatorLease(now, '6'), metadata: { ...operatorLease(now, '6').metadata, resourceVersion: current?.metadata.resourceVersion } });
  await waitUntil(async () => (await n.lookups.nodeSilenceMs()) === 6000, 10_000, 'the published rule', 100);
  m = await metrics(now);
  assert.deepEqual(m.nodes.map((x) => x.online), [true, false, false]);
  assert.equal(m.quorum, false);
  // The leader Lease expired: no leader.
  assert.equal((await metrics(now + 7000)).leader, null);
});

test('the operator\'s silence rule: taken at once while none was seen; once seen, read again only after 30 s', async (t) => {
  const n = await nodeUnderTest(t, 'node-a');
  let at = Date.now();
  const lookups = new ClusterLookups(n.client, n.cluster.namespace, { ...systemClock, now: () => at });
  const lease = (silence?: string, resourceVersion?: string): Lease => ({
    apiVersion: 'coordination.k8s.io/v1', kind: 'Lease',
    metadata: { name: 'vigil-operator', namespace: n.cluster.namespace, ...(resourceVersion ? { resourceVersion } : {}), ...(silence ? { annotations: { 'vigil.io/node-silence-seconds': silence } } : {}) },
    spec: { holderIdentity: 'op-1', leaseDurationSeconds: 6, renewTime: toMicroTime(at) },
  });
  const publish = async (silence: string) => {
    const current = await n.admin.get<Lease>(Resources.leases, n.cluster.namespace, 'vigil-operator');
    await n.admin.replace(Resources.leases, lease(silence, current?.metadata.resourceVersion));
  };
  assert.equal(await lookups.nodeSilenceMs(), 15_000, 'no operator yet: the default');
  await n.admin.create(Resources.leases, lease());
  at += 2500;
  assert.equal(await lookups.nodeSilenceMs(), 15_000, 'an operator Lease without a rule: the default');
  await publish('6');
  at += 2500;
  assert.equal(await lookups.nodeSilenceMs(), 6000, 'the first rule is taken at the next read after 2 s');
  await publish('9');
  at += 20_000;
  assert.equal(await lookups.nodeSilenceMs(), 6000, 'a seen rule is kept for 30 s (readiness asks at every probe)');
  at += 11_000;
  assert.equal(await lookups.nodeSilenceMs(), 9000);
});
