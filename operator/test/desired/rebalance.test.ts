// Balanced placement (planAssignment + rebalance): settled members first, rebalancing a few recording cameras at a
// time towards members settled for 30 s only, never without quorum, pins respected; quorum counts awaited members.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Camera } from '@vigil/crds';
import { awaitedMembers, type Node } from '@vigil/kube';
import { planAssignment } from '../../src/desired/assignment.js';
import { camera, node, recorderNode } from '../support/objects.js';

const NOW = Date.parse('2026-01-01T01:00:00Z');
const SETTLED = { onlineSince: NOW - 60_000 };
const JUST_UP = { onlineSince: NOW - 5_000 };
const opts = { now: NOW, settleMs: 30_000, maxMovesInFlight: 3 };
const recording = (name: string, n: string, extra: Camera['status'] = {}, spec: Partial<Camera['spec']> = {}) =>
  camera(name, { node: n, phase: 'Recording', recordingNode: n, conditions: [{ type: 'Recording', status: 'True' }], ...extra }, spec);
const loads = (plan: ReturnType<typeof planAssignment>) => Object.fromEntries([...plan.load].filter(([, n]) => n > 0));
const moves = (plan: ReturnType<typeof planAssignment>) => [...plan.decisions.values()].filter((d) => d.move === 'rebalance');

test('a member settled for 30 s gets cameras from the most loaded, make-before-break, until no one carries two more', () => {
  const cams = ['c1', 'c2', 'c3', 'c4', 'c5', 'c6'].map((n, i) => recording(n, i < 3 ? 'a' : 'b'));
  const plan = planAssignment(cams, [node('a', SETTLED), node('b', SETTLED), node('c', SETTLED)], opts);
  assert.deepEqual(loads(plan), { a: 2, b: 2, c: 2 });
  const moved = moves(plan);
  assert.equal(moved.length, 2);
  for (const d of moved) {
    assert.equal(d.node, 'c');
    assert.equal(d.handoverFrom, d.from, 'the old node records until the new one reports Recording');
    assert.ok(d.from === 'a' || d.from === 'b');
  }
  assert.notEqual(moved[0]?.from, moved[1]?.from, 'one from each of the two loaded members');
});

test('a member online for less than the settling period gets nothing by rebalancing (a flapping node churns nothing)', () => {
  const cams = ['c1', 'c2', 'c3', 'c4'].map((n) => recording(n, 'a'));
  for (const c of [{ onlineSince: NOW - 29_999 }, {}, { online: false }]) {
    const plan = planAssignment(cams, [node('a', SETTLED), node('b', SETTLED), node('c', c)], opts);
    assert.deepEqual(moves(plan).map((d) => d.node), ['b', 'b'], JSON.stringify(c));
  }
});

test('a few at a time: no new move while the moves in flight reach the limit', () => {
  const inFlight = recording('m1', 'c', { handoverFrom: 'a', recordingNode: 'a' });
  const cams = [inFlight, ...['c1', 'c2', 'c3', 'c4', 'c5', 'c6', 'c7', 'c8'].map((n) => recording(n, 'a'))];
  const nodes = [node('a', SETTLED), node('b', SETTLED), node('c', SETTLED)];
  assert.equal(moves(planAssignment(cams, nodes, opts)).length, 2, '3 in flight at most: one already, two more');
  assert.equal(moves(planAssignment(cams, nodes, { ...opts, maxMovesInFlight: 1 })).length, 0);
});

test('only cameras that record now are moved, never one in a move of its own, and pins are kept', () => {
  const cams = [
    camera('waiting', { node: 'a', phase: 'Assigned' }),
    recording('pinned', 'a', {}, { nodeName: 'a' }),
    recording('east', 'a', {}, { nodeSelector: { zone: 'east' } }),
    recording('free', 'a'),
  ];
  const plan = planAssignment(cams, [node('a', SETTLED), node('b', { ...SETTLED, labels: { zone: 'west' } })], opts);
  assert.deepEqual(moves(plan).map((d) => [d.key, d.node]), [['vigil/free', 'b']]);
});

test('no rebalancing without quorum', () => {
  const cams = ['c1', 'c2', 'c3', 'c4'].map((n) => recording(n, 'a'));
  const plan = planAssignment(cams, [node('a', SETTLED), node('b', SETTLED), node('c', { online: false }), node('d', { online: false })], opts);
  assert.equal(plan.quorum.ok, false);
  assert.deepEqual(moves(plan), []);
});

test('new cameras and failovers go to settled members first, to the others only when no settled one may take them', () => {
  const plan = planAssignment([camera('n1'), camera('n2')], [node('a', { ...SETTLED }), node('b', JUST_UP)], opts);
  assert.deepEqual([plan.decisions.get('vigil/n1')?.node, plan.decisions.get('vigil/n2')?.node], ['a', 'a']);
  const cold = planAssignment([camera('n1'), camera('n2')], [node('a', JUST_UP), node('b', JUST_UP)], opts);
  assert.deepEqual(loads(cold), { a: 1, b: 1 }, 'a cold start: nobody is settled, every member online takes its share');
  const pinned = planAssignment([camera('p', {}, { nodeName: 'b' })], [node('a', SETTLED), node('b', JUST_UP)], opts);
  assert.equal(pinned.decisions.get('vigil/p')?.node, 'b');
});

test('quorum counts the selected Nodes still waiting for their RecorderNode: the first member up alone is no majority', () => {
  const nodes: Node[] = ['a', 'b', 'c', 'other'].map((n) => ({ metadata: { name: n, labels: { role: n === 'other' ? 'db' : 'video' } } }));
  const awaited = awaitedMembers(nodes, (labels) => labels.role === 'video', [recorderNode('a')]);
  assert.deepEqual(awaited.map((n) => [n.name, n.member, n.online, n.awaited]), [['b', true, false, true], ['c', true, false, true]]);
  const plan = planAssignment(['c1', 'c2', 'c3'].map((n) => camera(n)), [node('a', JUST_UP), ...awaited], opts);
  assert.deepEqual([plan.quorum.voters, plan.quorum.onlineVoters, plan.quorum.ok], [3, 1, false]);
  assert.ok([...plan.decisions.values()].every((d) => d.node === undefined && d.reason === 'NoQuorum'));
  assert.match(plan.decisions.get('vigil/c1')?.message ?? '', /1 of 3 members online/);
});
