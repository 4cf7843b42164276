// The membership endpoints' recorder side: a request goes onto this node's own heartbeat Lease (the only object it
// may write), the operator's answer in this node's RecorderNode status ends it; names it cannot know are refused
// at once; no answer in time is a 503 naming the operator. Here the test answers as the operator would.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { API_VERSION, MEMBERSHIP_REQUEST_ANNOTATION, parseMembershipRequest, type MembershipOutcome, type MembershipRequest } from '@vigil/crds';
import { Resources, toApiTime, type KubeObject, type Lease } from '@vigil/kube';
import { waitUntil } from '@vigil/testing/processes';
import { tempDir } from '@vigil/testing/temp-dir';
import { CameraRegistry } from '../../src/cameras/registry.js';
import { AssignmentCache } from '../../src/cluster/assignment-cache.js';
import { ClusterCameraSource } from '../../src/cluster/cluster-camera-source.js';
import { ClusterRequestError } from '../../src/cluster/cluster-errors.js';
import { ClusterMembership } from '../../src/cluster/cluster-membership.js';
import { MembershipRequestChannel } from '../../src/cluster/membership-request-channel.js';
import { configSchema } from '../../src/config/schema.js';
import { systemClock } from '../../src/util/clock.js';
import { testLogger } from '../support/fakes.js';
import { nodeUnderTest, type NodeUnderTest } from '../support/cluster-view-fixture.js';

/** node-a's heartbeat Lease as the API server has it (the node does not watch Leases). */
function ownLease(n: NodeUnderTest): Promise<Lease | undefined> {
  return n.admin.get<Lease>(Resources.leases, n.cluster.namespace, 'vigil-node-node-a');
}

/** Plays the operator for one request: waits for it on node-a's Lease, answers with `result` in node-a's status. */
async function answer(n: NodeUnderTest, result: (r: MembershipRequest) => Omit<MembershipOutcome, 'id'>): Promise<MembershipRequest> {
  let request: MembershipRequest | undefined;
  const seen = new Set((n.view.recorderNode('node-a')?.status?.membershipRequest?.id ?? '').split(','));
  await waitUntil(async () => {
    const text = (await ownLease(n))?.metadata.annotations?.[MEMBERSHIP_REQUEST_ANNOTATION];
    request = parseMembershipRequest(text).request;
    return request !== undefined && !seen.has(request.id);
  }, 10_000, 'a request on node-a\'s Lease', 20);
  const r = request as MembershipRequest;
  const outcome = { id: r.id, ...result(r), time: toApiTime(Date.now()) };
  await n.admin.apply(Resources.recorderNodes, { apiVersion: API_VERSION, kind: 'RecorderNode', metadata: { name: 'node-a' }, status: { membershipRequest: outcome } } as KubeObject, { fieldManager: 'vigil-operator-membership', force: true, subresource: 'status' });
  return r;
}

async function setUp(t: Parameters<typeof nodeUnderTest>[0], timeoutMs = 10_000) {
  const n = await nodeUnderTest(t, 'node-a');
  for (const name of ['node-a', 'node-b']) await n.recorderNode(name);
  await n.until(() => n.view.recorderNodes.list().length === 2, 'the view');
  await waitUntil(async () => (await ownLease(n)) !== undefined, 10_000, 'node-a\'s Lease');
  const { log } = testLogger('info');
  const dir = await tempDir(t, 'vigil-membership-');
  const cache = new AssignmentCache(dir, 'node-a');
  const source = new ClusterCameraSource({ view: n.view, registry: new CameraRegistry(), config: configSchema.parse({}), nodeName: 'node-a', cache, clock: systemClock, log });
  const requests = new MembershipRequestChannel({ view: n.view, nodeName: 'node-a', annotate: (a) => n.heartbeat.annotate(a), clock: systemClock, timeoutMs });
  const membership = new ClusterMembership({ view: n.view, nodeName: 'node-a', heartbeat: n.heartbeat, requests, source, cache, clock: systemClock, log, handoverTimeoutMs: 10_000 });
  return { n, membership, cache, dir };
}

const kindOf = (err: unknown) => (err instanceof ClusterRequestError ? err.kind : String(err));

test('remove-node, add-learner and change-membership become requests on the node\'s own Lease; the operator\'s answer ends them', async (t) => {
  const { n, membership } = await setUp(t);
  const [removed] = await Promise.all([answer(n, () => ({ result: 'Done' })), membership.removeNode('node-b')]);
  assert.deepEqual([removed.action, removed.nodes], ['remove-node', ['node-b']]);
  const [learner] = await Promise.all([answer(n, () => ({ result: 'Done' })), membership.addLearner('node-new', 'http://new:9997')]);
  assert.deepEqual([learner.action, learner.nodes, learner.url], ['add-learner', ['node-new'], 'http://new:9997']);
  const [changed] = await Promise.all([answer(n, () => ({ result: 'Done' })), membership.changeMembership(['node-a', 'node-b'])]);
  assert.deepEqual([changed.action, changed.nodes], ['change-membership', ['node-a', 'node-b']]);
  // The request was written without renewing the heartbeat: the Lease has no renewal (the heartbeat never started).
  assert.equal((await n.admin.get<Lease>(Resources.leases, n.cluster.namespace, 'vigil-node-node-a'))?.spec?.renewTime ?? undefined, undefined);
});

test('refusals: unknown names at once, the operator\'s NodeNotFound as 404, other refusals and silence as 503', async (t) => {
  const { n, membership } = await setUp(t, 800);
  const before = (await ownLease(n))?.metadata.resourceVersion;
  await assert.rejects(membership.changeMembership([]), (err) => kindOf(err) === 'invalid_membership');
  await assert.rejects(membership.removeNode('node-x'), (err) => kindOf(err) === 'node_not_found');
  assert.equal((await ownLease(n))?.metadata.resourceVersion, before, 'nothing was asked of the operator');
  await Promise.all([
    answer(n, () => ({ result: 'Refused', reason: 'NodeNotFound', message: 'no RecorderNode "node-b"' })),
    assert.rejects(membership.removeNode('node-b'), (err) => kindOf(err) === 'node_not_found' && /node-b/.test(String(err))),
  ]);
  await Promise.all([
    answer(n, () => ({ result: 'Refused', reason: 'Expired', message: 'too old' })),
    assert.rejects(membership.removeNode('node-b'), (err) => kindOf(err) === 'cluster_unreachable' && /refused.*too old/.test(String(err))),
  ]);
  await assert.rejects(membership.removeNode('node-b'), (err) => kindOf(err) === 'cluster_unreachable' && /vigil-operator/.test(String(err)));
});

test('leave: asked of the operator, waits for the cameras to be handed over, then stops, deletes its heartbeat and erases its state', async (t) => {
  const { n, membership, cache } = await setUp(t);
  await mkdir(cache.dir, { recursive: true });
  await n.camera('door', {}, { node: 'node-a', phase: 'Recording' });
  await n.until(() => n.view.recordedHere().length === 1, 'door assigned to node-a');
  const leaving = membership.leave(false);
  const request = await answer(n, () => ({ result: 'Done' }));
  assert.equal(request.action, 'leave');
  // The operator moves the camera make-before-break (node-a records until node-b does), then node-b records it.
  const status = (s: Record<string, unknown>) => n.admin.apply(Resources.cameras, { apiVersion: API_VERSION, kind: 'Camera', metadata: { name: 'door', namespace: n.cluster.namespace }, status: s } as KubeObject, { fieldManager: 'vigil-operator', force: true, subresource: 'status' });
  await status({ node: 'node-b', handoverFrom: 'node-a', phase: 'Assigned' });
  await new Promise((r) => setTimeout(r, 500));
  assert.equal(n.heartbeat.paused, false, 'still recording while the new node does not');
  await status({ node: 'node-b', phase: 'Recording' });
  const result = await leaving;
  assert.deepEqual(result, { node_name: 'node-a', handed_over: 1, stopped_without_handover: 0 });
  assert.equal(n.heartbeat.paused, true);
  assert.equal(await n.admin.get(Resources.leases, n.cluster.namespace, 'vigil-node-node-a'), undefined, 'its heartbeat Lease deleted');
  assert.equal(existsSync(join(cache.dir)), false, 'cluster.dataDir/node_node-a erased');
});
