// The kubelet's stand-in for kube-scheduler decides as the scheduler's filters would for what the tests' charts ask:
// nodeSelector, required node affinity, taints against tolerations, cordoned Nodes, required anti-affinity per host,
// and spreads a controller's Pods before piling them up.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { V1Node, V1Pod } from '@kubernetes/client-node';
import { chooseNode, fits } from '../../src/kube/kubelet/pod-binder.js';

const node = (name: string, labels: Record<string, string> = {}, spec: V1Node['spec'] = {}): V1Node => ({ metadata: { name, labels: { 'kubernetes.io/hostname': name, ...labels } }, spec });
const pod = (name: string, spec: Partial<NonNullable<V1Pod['spec']>> = {}, meta: V1Pod['metadata'] = {}): V1Pod => ({ metadata: { name, namespace: 'ns', ...meta }, spec: { containers: [], ...spec } });
const owned = (name: string, nodeName: string | undefined, owner = 'rs-1'): V1Pod => pod(name, nodeName === undefined ? {} : { nodeName }, { labels: { app: 'a' }, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: owner, controller: true }] });

test('a taint keeps out every Pod that does not tolerate it; NoExecute too, PreferNoSchedule not', () => {
  const tainted = node('cp', {}, { taints: [{ key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' }] });
  assert.equal(fits(pod('p'), tainted, []), false);
  assert.equal(fits(pod('p', { tolerations: [{ key: 'node-role.kubernetes.io/control-plane', operator: 'Exists', effect: 'NoSchedule' }] }), tainted, []), true);
  assert.equal(fits(pod('p', { tolerations: [{ key: 'node-role.kubernetes.io/control-plane', operator: 'Exists', effect: 'NoExecute' }] }), tainted, []), false, 'another effect does not tolerate it');
  assert.equal(fits(pod('p', { tolerations: [{ operator: 'Exists' }] }), tainted, []), true, 'an empty key with Exists tolerates everything');
  const unreachable = node('w', {}, { taints: [{ key: 'node.kubernetes.io/unreachable', effect: 'NoExecute' }] });
  assert.equal(fits(pod('p', { tolerations: [{ key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 }] }), unreachable, []), true);
  assert.equal(fits(pod('p', { tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'b' }] }), node('d', {}, { taints: [{ key: 'dedicated', value: 'a', effect: 'NoSchedule' }] }), []), false, 'Equal compares the value');
  assert.equal(fits(pod('p'), node('soft', {}, { taints: [{ key: 'x', effect: 'PreferNoSchedule' }] }), []), true);
});

test('nodeSelector, required node affinity and a cordoned Node', () => {
  const ssd = node('a', { disk: 'ssd', zone: 'z1' });
  assert.equal(fits(pod('p', { nodeSelector: { disk: 'ssd' } }), ssd, []), true);
  assert.equal(fits(pod('p', { nodeSelector: { disk: 'hdd' } }), ssd, []), false);
  const affinity = (operator: string, values?: string[]) => pod('p', { affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator, ...(values === undefined ? {} : { values }) }] }] } } } });
  assert.deepEqual([fits(affinity('In', ['z1']), ssd, []), fits(affinity('In', ['z2']), ssd, []), fits(affinity('NotIn', ['z1']), ssd, []), fits(affinity('Exists'), ssd, []), fits(affinity('DoesNotExist'), ssd, [])], [true, false, false, true, false]);
  assert.equal(fits(pod('p'), node('c', {}, { unschedulable: true }), []), false);
});

test('required anti-affinity keeps a second replica off a host that runs one; preferred never blocks', () => {
  const term = { topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: { app: 'a' } } };
  const replica = pod('r2', { affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term] } } }, { labels: { app: 'a' } });
  assert.equal(fits(replica, node('w1'), [owned('r1', 'w1')]), false);
  assert.equal(fits(replica, node('w1'), [pod('other', { nodeName: 'w1' }, { labels: { app: 'b' } })]), true);
  const soft = pod('r2', { affinity: { podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 100, podAffinityTerm: term }] } } });
  assert.equal(fits(soft, node('w1'), [owned('r1', 'w1')]), true);
});

test('a controller’s Pods are spread: the Node with fewest of its siblings, then fewest Pods; none fits: undefined', () => {
  const nodes = [node('w1'), node('w2'), node('w3')];
  const busy = [pod('x', { nodeName: 'w2' }), pod('y', { nodeName: 'w2' }), pod('z', { nodeName: 'w3' })];
  assert.equal(chooseNode(owned('r1', undefined), nodes, [...busy, owned('r0', 'w1')])?.metadata?.name, 'w3', 'w1 has a sibling; w3 fewer Pods than w2');
  assert.equal(chooseNode(owned('r1', undefined), nodes, busy)?.metadata?.name, 'w1');
  assert.equal(chooseNode(pod('p', { nodeSelector: { gpu: 'yes' } }), nodes, []), undefined);
});
