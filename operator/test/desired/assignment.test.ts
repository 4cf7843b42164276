// planAssignment: least loaded, pins, stability, quorum, failover and make-before-break planned moves.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Camera } from '@vigil/crds';
import { passWrites, planAssignment, writeOrder, type CameraDecision } from '../../src/desired/assignment.js';
import { camera, node } from '../support/objects.js';

const assigned = (name: string, n: string, extra: Camera['status'] = {}) => camera(name, { node: n, phase: 'Recording', ...extra });
const nodesOf = (plan: ReturnType<typeof planAssignment>) => Object.fromEntries([...plan.decisions].map(([k, d]) => [k.split('/')[1], d.node]));

test('six new cameras on three online members: two each, least loaded first', () => {
  const cams = ['c1', 'c2', 'c3', 'c4', 'c5', 'c6'].map((n) => camera(n));
  const plan = planAssignment(cams, [node('a'), node('b'), node('c')]);
  assert.equal(plan.quorum.ok, true);
  assert.deepEqual([...plan.load.values()], [2, 2, 2]);
  assert.ok([...plan.decisions.values()].every((d) => d.move === 'assigned'));
});

test('stable: a camera on an online eligible member never moves, even when the load is uneven', () => {
  const cams = [assigned('c1', 'a'), assigned('c2', 'a'), assigned('c3', 'a')];
  const plan = planAssignment(cams, [node('a'), node('b'), node('c')]);
  assert.deepEqual(nodesOf(plan), { c1: 'a', c2: 'a', c3: 'a' });
  assert.ok([...plan.decisions.values()].every((d) => d.move === 'none'));
});

test('an offline owner: its cameras move at once to the least loaded online members, no handover', () => {
  const cams = [assigned('c1', 'a'), assigned('c2', 'a'), assigned('c3', 'b'), assigned('c4', 'c')];
  const plan = planAssignment(cams, [node('a', { online: false }), node('b'), node('c')]);
  const moved = [...plan.decisions.values()].filter((d) => d.move === 'failover');
  assert.equal(moved.length, 2);
  assert.ok(moved.every((d) => d.from === 'a' && d.handoverFrom === undefined && (d.node === 'b' || d.node === 'c')));
  assert.equal(plan.load.get('b'), 2);
  assert.equal(plan.load.get('c'), 2);
});

test('a node that comes back takes nothing back', () => {
  const cams = [assigned('c1', 'b'), assigned('c2', 'c')];
  const plan = planAssignment(cams, [node('a'), node('b'), node('c')]);
  assert.deepEqual(nodesOf(plan), { c1: 'b', c2: 'c' });
});

test('no quorum (2 of 3 members offline): nothing moves, nothing is assigned, the reason says why', () => {
  const cams = [assigned('c1', 'a'), assigned('c2', 'b'), camera('new')];
  const plan = planAssignment(cams, [node('a', { online: false }), node('b', { online: false }), node('c')]);
  assert.equal(plan.quorum.ok, false);
  assert.deepEqual(nodesOf(plan), { c1: 'a', c2: 'b', new: undefined });
  assert.equal(plan.decisions.get('vigil/new')?.reason, 'NoQuorum');
  assert.match(plan.decisions.get('vigil/new')?.message ?? '', /1 of 3 members online/);
  assert.ok([...plan.decisions.values()].every((d) => d.move === 'none'));
});

test('two members survive losing none: one of two offline is no quorum', () => {
  assert.equal(planAssignment([], [node('a'), node('b', { online: false })]).quorum.ok, false);
  assert.equal(planAssignment([], [node('a'), node('b')]).quorum.ok, true);
  // learners do not vote
  assert.equal(planAssignment([], [node('a'), node('b', { online: false, member: false })]).quorum.ok, true);
});

test('pins: nodeName and nodeSelector; a camera nobody may record stays Pending with a reason', () => {
  const cams = [
    camera('pinned', {}, { nodeName: 'b' }),
    camera('gpu', {}, { nodeSelector: { gpu: 'yes' } }),
    camera('nowhere', {}, { nodeSelector: { zone: 'mars' } }),
  ];
  const plan = planAssignment(cams, [node('a'), node('b'), node('c', { labels: { gpu: 'yes' } })]);
  assert.deepEqual(nodesOf(plan), { pinned: 'b', gpu: 'c', nowhere: undefined });
  const d = plan.decisions.get('vigil/nowhere')!;
  assert.equal(d.reason, 'NoEligibleNode');
  assert.match(d.message ?? '', /nodeSelector zone=mars/);
});

test('a pinned camera whose node dies has nowhere to go: unassigned, with the reason', () => {
  const plan = planAssignment([assigned('p', 'b', {})].map((c) => ({ ...c, spec: { ...c.spec, nodeName: 'b' } })), [node('a'), node('b', { online: false }), node('c')]);
  const d = plan.decisions.get('vigil/p')!;
  assert.equal(d.move, 'unassigned');
  assert.equal(d.node, undefined);
  assert.equal(d.reason, 'NoEligibleNode');
});

test('planned move (owner online, member false): make-before-break with handoverFrom', () => {
  const cams = [assigned('c1', 'a'), assigned('c2', 'b')];
  const plan = planAssignment(cams, [node('a', { member: false }), node('b'), node('c')]);
  const d = plan.decisions.get('vigil/c1')!;
  assert.equal(d.move, 'planned');
  assert.equal(d.node, 'c');
  assert.equal(d.handoverFrom, 'a');
});

test('planned move: handoverFrom stays until the new node reports Recording, then clears', () => {
  const moving = assigned('c1', 'c', { handoverFrom: 'a', recordingNode: 'a', conditions: [{ type: 'Recording', status: 'True' }] });
  const nodes = [node('a', { member: false }), node('b'), node('c')];
  let d = planAssignment([moving], nodes).decisions.get('vigil/c1')!;
  assert.deepEqual([d.node, d.handoverFrom, d.move], ['c', 'a', 'none']);
  const recorded = assigned('c1', 'c', { handoverFrom: 'a', recordingNode: 'c', conditions: [{ type: 'Recording', status: 'True' }] });
  d = planAssignment([recorded], nodes).decisions.get('vigil/c1')!;
  assert.deepEqual([d.node, d.handoverFrom, d.move, d.from], ['c', undefined, 'handover-complete', 'a']);
});

test('planned move with nowhere to go: the camera stays where it records', () => {
  const plan = planAssignment([assigned('c1', 'a')], [node('a', { member: false }), node('b', { online: false })]);
  // (1 voter, offline: no quorum either way) — with quorum:
  const plan2 = planAssignment([assigned('c1', 'a', {})].map((c) => ({ ...c, spec: { ...c.spec, nodeName: 'a' } })), [node('a', { member: false }), node('b')]);
  assert.equal(plan.decisions.get('vigil/c1')?.node, 'a');
  assert.equal(plan2.decisions.get('vigil/c1')?.node, 'a');
  assert.equal(plan2.decisions.get('vigil/c1')?.move, 'none');
});

test('a left node (annotation) takes nothing and its cameras move make-before-break', () => {
  const plan = planAssignment([assigned('c1', 'a'), camera('c2')], [node('a', { member: false, left: true }), node('b')]);
  assert.deepEqual([plan.decisions.get('vigil/c1')?.node, plan.decisions.get('vigil/c1')?.handoverFrom], ['b', 'a']);
  assert.equal(plan.decisions.get('vigil/c2')?.node, 'b');
});

test('a camera whose name is no camera id gets no node', () => {
  const long = camera('x'.repeat(70));
  const d = planAssignment([long], [node('a')]).decisions.get(`vigil/${'x'.repeat(70)}`)!;
  assert.equal(d.reason, 'InvalidName');
  assert.equal(d.node, undefined);
});

test('a pass writes failovers first, then every other camera that gets, loses or changes its node, then the rest in their order', () => {
  const w = (key: string, move: CameraDecision['move']) => ({ key, decision: { key, move } as CameraDecision });
  const order = writeOrder([w('a', 'none'), w('b', 'assigned'), w('c', 'none'), w('d', 'failover'), w('e', 'handover-complete'), w('f', 'unassigned'), w('g', 'failover')]);
  assert.deepEqual(order.map((x) => x.key), ['d', 'g', 'b', 'e', 'f', 'a', 'c']);
});

test('a pass makes every urgent write and at most the cap of the others; the rest wait for the next pass', () => {
  const w = (key: string, move: CameraDecision['move']) => ({ key, decision: { key, move } as CameraDecision });
  const phases = Array.from({ length: 5 }, (_, i) => w(`p${i}`, 'none'));
  const pass = passWrites([...phases, w('new', 'assigned'), w('silent', 'failover'), w('moved', 'rebalance')], 2);
  assert.deepEqual(pass.writes.map((x) => x.key), ['silent', 'new', 'moved', 'p0', 'p1']);
  assert.equal(pass.deferred, 3);
  // Nothing urgent: still no more than the cap.
  assert.deepEqual(passWrites(phases, 2).writes.map((x) => x.key), ['p0', 'p1']);
  // Every urgent write, however many, in one pass.
  const many = Array.from({ length: 300 }, (_, i) => w(`c${i}`, 'assigned'));
  assert.deepEqual([passWrites(many, 2).writes.length, passWrites(many, 2).deferred], [300, 0]);
});
