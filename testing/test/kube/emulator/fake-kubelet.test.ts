// The fake kubelet: Nodes Ready with renewed Leases, bound Pods Running and Ready (or following a readiness URL), a Node going NotReady, workload status.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { waitUntil } from '../../../src/processes.js';
import { ok, startEmulatorFixture } from './emulator-fixture.js';

type Conditioned = { status?: { phase?: string; conditions?: Array<{ type: string; status: string }> }; spec?: { renewTime?: string; holderIdentity?: string; taints?: Array<{ key: string }> } };
const condition = (o: Conditioned, type: string) => o.status?.conditions?.find((c) => c.type === type)?.status;

test('Nodes become Ready and renew their node Leases; setNodeReady(false) stops both and un-readies their Pods', async (t) => {
  const f = await startEmulatorFixture(t, { kubelet: { heartbeatSeconds: 0.2 } });
  const get = async (path: string) => (await f.request('GET', path)).body as Conditioned;
  for (const name of ['n1', 'n2']) assert.equal((await f.request('POST', '/api/v1/nodes', { metadata: { name } })).status, 201);
  await waitUntil(async () => condition(await get('/api/v1/nodes/n1'), 'Ready') === 'True', 30_000, 'n1 Ready');
  assert.match(ok(await f.kubectl(['get', 'nodes']), 'get nodes'), /^n1\s+Ready\s+<none>\s+\S+\s+v1.35.2\nn2\s+Ready\s/m);
  const lease = await get('/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/n1');
  assert.equal(lease.spec?.holderIdentity, 'n1');
  await waitUntil(async () => (await get('/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/n1')).spec?.renewTime !== lease.spec?.renewTime, 30_000, 'the node Lease to be renewed');

  assert.equal((await f.request('POST', '/api/v1/namespaces/default/pods', { metadata: { name: 'rec-n1' }, spec: { nodeName: 'n1', containers: [{ name: 'recorder', image: 'vigil/recorder:1' }] } })).status, 201);
  await waitUntil(async () => condition(await get('/api/v1/namespaces/default/pods/rec-n1'), 'Ready') === 'True', 30_000, 'the Pod Ready');
  assert.match(ok(await f.kubectl(['get', 'pod', 'rec-n1', '-o', 'wide']), 'get pod'), /^rec-n1\s+1\/1\s+Running\s+0\s+\S+\s+10\.244\.\d+\.\d+\s+n1\s/m);
  ok(await f.kubectl(['wait', 'pod/rec-n1', '--for=condition=Ready', '--timeout=30s']), 'wait pod ready');
  // A Pod nobody scheduled stays Pending.
  await f.request('POST', '/api/v1/namespaces/default/pods', { metadata: { name: 'unbound' }, spec: { containers: [{ name: 'c', image: 'busybox' }] } });

  f.emulator.kubelet.setNodeReady('n1', false);
  await waitUntil(async () => condition(await get('/api/v1/nodes/n1'), 'Ready') === 'Unknown', 30_000, 'n1 not Ready');
  await waitUntil(async () => condition(await get('/api/v1/namespaces/default/pods/rec-n1'), 'Ready') === 'False', 30_000, 'its Pod not Ready');
  assert.ok((await get('/api/v1/nodes/n1')).spec?.taints?.some((x) => x.key === 'node.kubernetes.io/unreachable'));
  const frozen = (await get('/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/n1')).spec?.renewTime;
  const n2Before = (await get('/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/n2')).spec?.renewTime;
  await waitUntil(async () => (await get('/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/n2')).spec?.renewTime !== n2Before, 30_000, 'n2 to renew meanwhile');
  assert.equal((await get('/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/n1')).spec?.renewTime, frozen, 'n1 renews no more');
  assert.equal((await get('/api/v1/namespaces/default/pods/unbound')).status?.phase, 'Pending');

  f.emulator.kubelet.setNodeReady('n1', true);
  await waitUntil(async () => condition(await get('/api/v1/namespaces/default/pods/rec-n1'), 'Ready') === 'True', 30_000, 'the Pod Ready again');
  assert.equal(condition(await get('/api/v1/nodes/n1'), 'Ready'), 'True');
});

test('Pod readiness can follow a local URL; Deployments and StatefulSets report their replicas ready', async (t) => {
  const f = await startEmulatorFixture(t);
  let healthy = false;
  const probe = createServer((_req, res) => { res.writeHead(healthy ? 200 : 503); res.end(); });
  probe.listen(0, '127.0.0.1');
  await once(probe, 'listening');
  t.after(() => new Promise<void>((r) => probe.close(() => r())));
  const url = `http://127.0.0.1:${(probe.address() as AddressInfo).port}/api/health/ready`;
  const get = async (path: string) => (await f.request('GET', path)).body as Conditioned;

  await f.request('POST', '/api/v1/nodes', { metadata: { name: 'n1' } });
  f.emulator.kubelet.setPodReadinessUrl('default', 'rec', url);
  await f.request('POST', '/api/v1/namespaces/default/pods', { metadata: { name: 'rec' }, spec: { nodeName: 'n1', containers: [{ name: 'recorder', image: 'vigil/recorder:1' }] } });
  await waitUntil(async () => (await get('/api/v1/namespaces/default/pods/rec')).status?.phase === 'Running', 30_000, 'the Pod Running');
  assert.equal(condition(await get('/api/v1/namespaces/default/pods/rec'), 'Ready'), 'False');
  healthy = true;
  await waitUntil(async () => condition(await get('/api/v1/namespaces/default/pods/rec'), 'Ready') === 'True', 30_000, 'Ready once the URL answers 200');
  healthy = false;
  await waitUntil(async () => condition(await get('/api/v1/namespaces/default/pods/rec'), 'Ready') === 'False', 30_000, 'not Ready once it answers 503');
  f.emulator.kubelet.setPodReadinessUrl('default', 'rec', undefined);
  await waitUntil(async () => condition(await get('/api/v1/namespaces/default/pods/rec'), 'Ready') === 'True', 30_000, 'Ready again by default');

  const sts = { apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'postgresql' }, spec: { replicas: 1, serviceName: 'postgresql', selector: { matchLabels: { app: 'pg' } }, template: { metadata: { labels: { app: 'pg' } }, spec: { containers: [{ name: 'pg', image: 'postgres:16' }] } }, volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }] } };
  ok(await f.kubectl(['apply', '-f', '-'], { input: JSON.stringify(sts) }), 'apply sts');
  ok(await f.kubectl(['rollout', 'status', 'statefulset/postgresql', '--timeout=30s']), 'sts rollout');
  assert.match(ok(await f.kubectl(['get', 'sts']), 'get sts'), /^postgresql\s+1\/1\s/m);
});
