// The membership controller, one reconcile at a time: a request on a node's heartbeat Lease is carried out (spec.member,
// vigil.io/left, a learner made) and answered in that node's status; a handled or stale request changes nothing.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pino } from 'pino';
import { API_VERSION, MEMBERSHIP_REQUEST_ANNOTATION, type MembershipRequest, type RecorderNode } from '@vigil/crds';
import { Resources, toApiTime, toMicroTime, type Lease } from '@vigil/kube';
import { reconcileMembershipRequestsFor } from '../../src/controllers/membership-requests.js';
import { inProcessOperator } from '../support/in-process.js';

test('requests are carried out once and answered; refusals say why; nothing else is touched', async (t) => {
  const { ctx, admin, signal, until, cluster } = await inProcessOperator(t);
  const ns = cluster.namespace;
  for (const n of ['node-a', 'node-b', 'node-c']) await admin.create<RecorderNode>(Resources.recorderNodes, { apiVersion: API_VERSION, kind: 'RecorderNode', metadata: { name: n }, spec: { nodeName: n, member: true } });
  await admin.create<Lease>(Resources.leases, { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'vigil-node-node-a', namespace: ns }, spec: { holderIdentity: 'node-a' } });
  const reconcile = reconcileMembershipRequestsFor(ctx);
  const rn = async (name: string) => (await admin.get<RecorderNode>(Resources.recorderNodes, undefined, name)) as RecorderNode;
  let n = 0;
  const ask = async (request: Omit<MembershipRequest, 'id' | 'requestedAt'>, requestedAt = Date.now()) => {
    const id = `r${++n}`;
    const text = JSON.stringify({ id, requestedAt: toApiTime(requestedAt), ...request });
    await admin.mergePatch(Resources.leases, ns, 'vigil-node-node-a', { metadata: { annotations: { [MEMBERSHIP_REQUEST_ANNOTATION]: text } } });
    await until(() => ctx.caches.leases.get(`${ns}/vigil-node-node-a`)?.metadata.annotations?.[MEMBERSHIP_REQUEST_ANNOTATION] === text, 'the request in the cache');
    await until(() => ['node-a', 'node-b', 'node-c'].every((x) => ctx.caches.recorderNodes.get(x) !== undefined), 'the RecorderNodes');
    await reconcile('node-a', signal);
    const outcome = (await rn('node-a')).status?.membershipRequest;
    assert.equal(outcome?.id, id);
    await until(() => ctx.caches.recorderNodes.get('node-a')?.status?.membershipRequest?.id === id, 'the outcome in the cache');
    return outcome;
  };

  assert.equal((await ask({ action: 'remove-node', nodes: ['node-b'] }))?.result, 'Done');
  assert.equal((await rn('node-b')).spec.member, false);
  const missing = await ask({ action: 'remove-node', nodes: ['node-x'] });
  assert.deepEqual([missing?.result, missing?.reason], ['Refused', 'NodeNotFound']);
  const stale = await ask({ action: 'remove-node', nodes: ['node-c'] }, Date.now() - 120_000);
  assert.deepEqual([stale?.result, stale?.reason], ['Refused', 'Expired']);
  assert.equal((await rn('node-c')).spec.member, true, 'a stale request changes nothing');

  assert.equal((await ask({ action: 'add-learner', nodes: ['node-new'], url: 'http://new:9997' }))?.result, 'Done');
  const learner = await rn('node-new');
  assert.deepEqual([learner.spec.member, learner.metadata.annotations?.['vigil.io/url']], [false, 'http://new:9997']);

  assert.equal((await ask({ action: 'change-membership', nodes: ['node-a', 'node-b'] }))?.result, 'Done');
  assert.deepEqual(await Promise.all(['node-a', 'node-b', 'node-c', 'node-new'].map(async (x) => (await rn(x)).spec.member)), [true, true, false, false]);

  assert.equal((await ask({ action: 'leave' }))?.result, 'Done');
  const left = await rn('node-a');
  assert.equal(left.spec.member, false);
  assert.ok(left.metadata.annotations?.['vigil.io/left']);

  // The same request seen again (a resync) is not carried out twice: a user's later change stands.
  await admin.mergePatch(Resources.recorderNodes, undefined, 'node-a', { spec: { member: true }, metadata: { annotations: { 'vigil.io/left': null } } });
  await until(() => ctx.caches.recorderNodes.get('node-a')?.spec.member === true, 'the user\'s change');
  await reconcile('node-a', signal);
  assert.equal((await rn('node-a')).spec.member, true);
});

test('an unreadable request is warned about once per request, not at every heartbeat that renews its Lease', async (t) => {
  const { ctx, admin, signal, until, cluster } = await inProcessOperator(t);
  const ns = cluster.namespace;
  const warnings: string[] = [];
  const log = pino({ level: 'warn' }, { write: (line: string) => warnings.push(line) });
  const reconcile = reconcileMembershipRequestsFor({ ...ctx, log });
  await admin.create<RecorderNode>(Resources.recorderNodes, { apiVersion: API_VERSION, kind: 'RecorderNode', metadata: { name: 'node-a' }, spec: { nodeName: 'node-a', member: true } });
  await admin.create<Lease>(Resources.leases, { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'vigil-node-node-a', namespace: ns }, spec: { holderIdentity: 'node-a' } });
  const annotate = async (text: string | null) => {
    await admin.mergePatch(Resources.leases, ns, 'vigil-node-node-a', { metadata: { annotations: { [MEMBERSHIP_REQUEST_ANNOTATION]: text } } });
    await until(() => (ctx.caches.leases.get(`${ns}/vigil-node-node-a`)?.metadata.annotations?.[MEMBERSHIP_REQUEST_ANNOTATION] ?? null) === text, 'the annotation in the cache');
  };
  const heartbeat = async (i: number) => {
    const renewed = await admin.mergePatch<Lease>(Resources.leases, ns, 'vigil-node-node-a', { spec: { renewTime: toMicroTime(Date.now() + i * 1000) } });
    await until(() => ctx.caches.leases.get(`${ns}/vigil-node-node-a`)?.metadata.resourceVersion === renewed.metadata.resourceVersion, 'the renewal in the cache');
    await reconcile('node-a', signal);
  };
  const unreadableWarnings = () => warnings.filter((w) => w.includes('not readable')).length;

  await annotate('{"id": 7}');
  for (let i = 0; i < 5; i++) await heartbeat(i);
  assert.equal(unreadableWarnings(), 1, 'five heartbeats, one bad request: one warning');
  await annotate('not json');
  for (let i = 0; i < 3; i++) await heartbeat(i);
  assert.equal(unreadableWarnings(), 2, 'another bad request: warned once more');
  await annotate(null);
  await reconcile('node-a', signal);
  await annotate('not json');
  await reconcile('node-a', signal);
  assert.equal(unreadableWarnings(), 3, 'the same bad text after a readable state is a new request');
});
