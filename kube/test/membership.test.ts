// Vigil's membership rules (membership/): online by the heartbeat Lease and the silence rule, member by spec and the
// left annotation, settled since the Online condition, where a node is (its Lease's report first), quorum with the
// selected Nodes still waiting for their RecorderNode.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { RecorderNode } from '@vigil/crds';
import { awaitedMembers, isOnline, nodeViews, quorumOf, reportAnnotations, reportOf, silenceMsOf, toMicroTime, type Lease, type Node } from '../src/index.js';

const NOW = Date.parse('2026-03-01T12:00:00Z');

function rn(name: string, opts: { member?: boolean; left?: boolean; status?: RecorderNode['status']; nodeName?: string } = {}): RecorderNode {
  return {
    apiVersion: 'vigil.io/v1alpha1', kind: 'RecorderNode',
    metadata: { name, ...(opts.left ? { annotations: { 'vigil.io/left': '2026-03-01T11:00:00Z' } } : {}) },
    spec: { nodeName: opts.nodeName ?? name, member: opts.member ?? true },
    ...(opts.status ? { status: opts.status } : {}),
  };
}

function lease(node: string, renewMs: number | undefined, annotations?: Record<string, string>): Lease {
  return { metadata: { name: `vigil-node-${node}`, namespace: 'vigil', ...(annotations ? { annotations } : {}) }, spec: { holderIdentity: node, ...(renewMs !== undefined ? { renewTime: toMicroTime(renewMs) } : {}) } };
}

test('online while the last renewal is no older than the silence rule; a Lease without renewal is offline', () => {
  assert.equal(isOnline(lease('a', NOW - 15_000), NOW, 15_000), true);
  assert.equal(isOnline(lease('a', NOW - 15_001), NOW, 15_000), false);
  assert.equal(isOnline(lease('a', NOW - 7_000), NOW, 6_000), false);
  assert.equal(isOnline(lease('a', undefined), NOW, 15_000), false);
  assert.equal(isOnline(undefined, NOW, 15_000), false);
});

test('the silence rule the operator publishes, else the default', () => {
  assert.equal(silenceMsOf('6', 15), 6000);
  assert.equal(silenceMsOf('2.5', 15), 2500);
  for (const bad of [undefined, '', 'x', '0', '-3']) assert.equal(silenceMsOf(bad, 15), 15_000, String(bad));
});

test('node views: member, left, online, settled since the Online condition, url from the Lease report first', () => {
  const leases = new Map<string, Lease>([
    ['vigil-node-a', lease('a', NOW - 1000, { 'vigil.io/url': 'http://a.reported:9997' })],
    ['vigil-node-b', lease('b', NOW - 1000)],
    ['vigil-node-c', lease('c', NOW - 60_000)],
  ]);
  const onlineSince = '2026-03-01T11:59:00Z';
  const views = nodeViews(
    [
      rn('c', { member: false }),
      rn('a', { status: { url: 'http://a.status:9997', conditions: [{ type: 'Online', status: 'True', lastTransitionTime: onlineSince }] } }),
      rn('b', { left: true, status: { url: 'http://b.status:9997' } }),
      rn('d'),
    ],
    (name) => leases.get(name), (name) => (name === 'a' ? { metadata: { name, labels: { zone: 'east' } } } : undefined), NOW, 15_000, (name) => `http://svc-${name}`,
  );
  assert.deepEqual(views.map((v) => [v.name, v.member, v.left, v.online, v.url]), [
    ['a', true, false, true, 'http://a.reported:9997'],
    ['b', false, true, true, 'http://b.status:9997'],
    ['c', false, false, false, 'http://svc-c'],
    ['d', true, false, false, 'http://svc-d'],
  ]);
  assert.equal(views[0]?.onlineSince, Date.parse(onlineSince));
  assert.deepEqual(views[0]?.labels, { zone: 'east' });
  assert.equal(views[1]?.onlineSince, undefined, 'online without an Online=True condition yet: not settled');
  assert.equal(views[2]?.lastHeartbeat, NOW - 60_000);
});

test('quorum: more than half of the members online; learners and left nodes do not vote', () => {
  const v = (name: string, member: boolean, online: boolean) => ({ name, member, left: false, online, labels: {} });
  assert.deepEqual(quorumOf([v('a', true, true), v('b', true, true), v('c', true, false)]), { voters: 3, onlineVoters: 2, ok: true });
  assert.equal(quorumOf([v('a', true, true), v('b', true, false)]).ok, false);
  assert.equal(quorumOf([v('a', true, true), v('b', false, false)]).ok, true);
  assert.equal(quorumOf([]).ok, false);
});

test('awaited members: selected Nodes without a RecorderNode count as offline members; others and deleted Nodes do not', () => {
  const nodes: Node[] = [
    { metadata: { name: 'a', labels: { rec: 'yes' } } },
    { metadata: { name: 'b', labels: { rec: 'yes' } } },
    { metadata: { name: 'c', labels: { rec: 'no' } } },
    { metadata: { name: 'd', labels: { rec: 'yes' }, deletionTimestamp: '2026-03-01T11:00:00Z' } },
    { metadata: { name: 'e', labels: { rec: 'yes' } } },
  ];
  const awaited = awaitedMembers(nodes, (l) => l.rec === 'yes', [rn('a'), rn('x', { nodeName: 'e' })]);
  assert.deepEqual(awaited.map((n) => [n.name, n.member, n.online, n.awaited]), [['b', true, false, true]]);
});

test('a report written as Lease annotations reads back the same; a field without a value is removed', () => {
  const report = { url: 'http://a:9997', version: '1.2.3', cameras: 4 };
  const annotations = reportAnnotations(report);
  assert.equal(annotations['vigil.io/public-url'], null);
  const written = Object.fromEntries(Object.entries(annotations).filter(([, v]) => v !== null)) as Record<string, string>;
  assert.deepEqual(reportOf({ metadata: { annotations: written } }), report);
  assert.deepEqual(reportOf({ metadata: { annotations: { 'vigil.io/cameras': '-1' } } }), {});
  assert.deepEqual(reportOf(undefined), {});
});
