// Watching a roll of the recorder Pods: one node at a time is what the operator promises; two at once must show.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { recorderPodStates, RollTracker, type RecorderPodState } from '../../../src/kube/cluster-scenario.js';

const pod = (node: string, hash: string, ready = true, deleting = false): RecorderPodState => ({ node, name: `vigil-recorder-${node}`, uid: `${node}-${hash}`, ready, deleting, templateHash: hash });
const NODES = ['a', 'b', 'c'];
const before = NODES.map((n) => pod(n, 'old'));

test('one node at a time: at most one node without a Ready Pod, and the order of the roll', () => {
  const tracker = new RollTracker(NODES, before);
  const steps: RecorderPodState[][] = [
    before,
    [pod('a', 'old', true, true), pod('b', 'old'), pod('c', 'old')],
    [pod('a', 'new', false), pod('b', 'old'), pod('c', 'old')],
    [pod('a', 'new'), pod('b', 'old'), pod('c', 'old')],
    [pod('a', 'new'), pod('c', 'old')],
    [pod('a', 'new'), pod('b', 'new'), pod('c', 'old')],
    [pod('a', 'new'), pod('b', 'new'), pod('c', 'new', false)],
    [pod('a', 'new'), pod('b', 'new'), pod('c', 'new')],
  ];
  for (const s of steps) tracker.observe(s);
  assert.equal(tracker.done, true);
  assert.deepEqual(tracker.order, ['a', 'b', 'c']);
  assert.equal(tracker.maxOut, 1);
});

test('two nodes replaced at once are caught', () => {
  const tracker = new RollTracker(NODES, before);
  tracker.observe([pod('a', 'new', false), pod('b', 'old', true, true), pod('c', 'old')]);
  assert.equal(tracker.maxOut, 2);
  assert.deepEqual(tracker.worst, ['a', 'b']);
  assert.equal(tracker.done, false);
});

test('kubectl get pods -o json becomes Pod states (node, readiness, deletion, template hash)', () => {
  const json = JSON.stringify({ items: [
    { metadata: { name: 'vigil-recorder-a', uid: 'u1', annotations: { 'vigil.io/template-hash': 'h1' } }, spec: { nodeName: 'a' }, status: { conditions: [{ type: 'Ready', status: 'True' }] } },
    { metadata: { name: 'vigil-recorder-b', uid: 'u2', deletionTimestamp: '2026-11-22T10:00:00Z' }, spec: { nodeName: 'b' }, status: { conditions: [{ type: 'Ready', status: 'False' }] } },
  ] });
  assert.deepEqual(recorderPodStates(json), [
    { node: 'a', name: 'vigil-recorder-a', uid: 'u1', ready: true, deleting: false, templateHash: 'h1' },
    { node: 'b', name: 'vigil-recorder-b', uid: 'u2', ready: false, deleting: true, templateHash: '' },
  ]);
});
