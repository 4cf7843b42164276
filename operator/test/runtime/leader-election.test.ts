// LeaderElector against an in-memory Lease store and a fake clock: acquire, standby, expiry, release, loss.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pino } from 'pino';
import { LeaderElector, type LeaseStore } from '../../src/runtime/leader-election.js';
import type { Lease } from '@vigil/kube';
import { FakeClock, settle } from '../support/fake-clock.js';

class MemoryLeaseStore implements LeaseStore {
  lease: Lease | undefined;
  rv = 0;
  failing = false;
  reads = 0;
  async get() {
    this.reads++;
    if (this.failing) throw new Error('API unreachable');
    return this.lease ? structuredClone(this.lease) : undefined;
  }
  async create(lease: Lease) {
    if (this.failing) throw new Error('API unreachable');
    if (this.lease) throw new Error('409 AlreadyExists');
    this.lease = { ...structuredClone(lease), metadata: { ...lease.metadata, resourceVersion: String(++this.rv) } };
    return structuredClone(this.lease);
  }
  async update(lease: Lease) {
    if (this.failing) throw new Error('API unreachable');
    if (lease.metadata.resourceVersion !== this.lease?.metadata.resourceVersion) throw new Error('409 Conflict');
    this.lease = { ...structuredClone(lease), metadata: { ...lease.metadata, resourceVersion: String(++this.rv) } };
    return structuredClone(this.lease);
  }
}

const log = pino({ level: 'silent' });
const timing = { leaseDurationMs: 6000, renewDeadlineMs: 4000, retryPeriodMs: 1000 };
const elector = (identity: string, store: LeaseStore, clock: FakeClock) =>
  new LeaderElector({ identity, leaseName: 'vigil-operator', namespace: 'vigil', store, clock, log, ...timing });

test('the first candidate creates the Lease and leads; the second waits while it is renewed', async () => {
  const clock = new FakeClock();
  const store = new MemoryLeaseStore();
  const a = elector('a', store, clock);
  const b = elector('b', store, clock);
  assert.equal(await a.tryAcquireOrRenew(new AbortController().signal), true);
  assert.equal(store.lease?.spec?.holderIdentity, 'a');
  assert.equal(store.lease?.spec?.leaseDurationSeconds, 6);
  for (let i = 0; i < 10; i++) {
    await clock.advance(1000);
    assert.equal(await a.tryAcquireOrRenew(new AbortController().signal), true);
    assert.equal(await b.tryAcquireOrRenew(new AbortController().signal), false);
  }
  assert.equal(b.currentHolder(), 'a');
});

test('a standby takes over only after the lease duration has passed since it last saw a renewal', async () => {
  const clock = new FakeClock();
  const store = new MemoryLeaseStore();
  const a = elector('a', store, clock);
  const b = elector('b', store, clock);
  await a.tryAcquireOrRenew(new AbortController().signal);
  assert.equal(await b.tryAcquireOrRenew(new AbortController().signal), false);
  // a dies (kill -9): nothing renews any more
  await clock.advance(5000);
  assert.equal(await b.tryAcquireOrRenew(new AbortController().signal), false, 'not before 6 s');
  await clock.advance(1100);
  assert.equal(await b.tryAcquireOrRenew(new AbortController().signal), true);
  assert.equal(store.lease?.spec?.holderIdentity, 'b');
  assert.equal(store.lease?.spec?.leaseTransitions, 1);
});

test('release: the standby takes over at its next try', async () => {
  const clock = new FakeClock();
  const store = new MemoryLeaseStore();
  const a = elector('a', store, clock);
  const b = elector('b', store, clock);
  const stop = new AbortController();
  assert.equal(await a.acquire(stop.signal), true);
  assert.equal(await b.tryAcquireOrRenew(new AbortController().signal), false);
  await a.release();
  assert.equal(store.lease?.spec?.holderIdentity, '');
  assert.equal(await b.tryAcquireOrRenew(new AbortController().signal), true);
});

test('release with an outdated version (a renewal landed meanwhile) reads the Lease again and still releases', async () => {
  const clock = new FakeClock();
  const store = new MemoryLeaseStore();
  const a = elector('a', store, clock);
  assert.equal(await a.acquire(new AbortController().signal), true);
  store.lease = { ...store.lease!, metadata: { ...store.lease!.metadata, resourceVersion: String(++store.rv) } };
  await a.release();
  assert.equal(store.lease?.spec?.holderIdentity, '');
});

test('a leader that cannot renew within the renew deadline loses leadership (and never overlaps the next one)', async () => {
  const clock = new FakeClock();
  const store = new MemoryLeaseStore();
  const a = elector('a', store, clock);
  assert.equal(await a.acquire(new AbortController().signal), true);
  const outcome = a.renewUntilLost(new AbortController().signal);
  await clock.advance(3000);
  assert.equal(a.isLeader(), true);
  store.failing = true;
  let result: string | undefined;
  void outcome.then((r) => (result = r));
  await clock.advance(3000);
  assert.equal(result, undefined, 'still within 4 s of the last renewal');
  await clock.advance(2000);
  await settle();
  assert.equal(result, 'lost');
  assert.equal(a.isLeader(), false);
  // it stopped at most 4 s after its last renewal; a standby could take over only 6 s after it
});

test('the leadership-lost log says how late the renewal timer fired: a busy event loop, told apart from a slow API', async () => {
  const clock = new FakeClock();
  const store = new MemoryLeaseStore();
  const lines: Array<Record<string, unknown>> = [];
  const a = new LeaderElector({
    identity: 'a', leaseName: 'vigil-operator', namespace: 'vigil', store, clock, ...timing,
    log: pino({ level: 'error' }, { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) }),
  });
  assert.equal(await a.acquire(new AbortController().signal), true);
  const outcome = a.renewUntilLost(new AbortController().signal);
  await clock.advance(1000); // renewed
  store.failing = true;
  clock.stall(4500); // the loop is blocked past the renew deadline: the 1 s timer fires 3.5 s late
  await clock.advance(0);
  assert.equal(await outcome, 'lost');
  assert.equal(lines.length, 1);
  assert.equal(lines[0]?.msg, 'leadership lost: no renewal within the renew deadline');
  assert.equal(lines[0]?.lateMs, 3500);
  assert.equal(lines[0]?.sinceRenewMs, 4500);
});

/** 'a' leads on a fresh store and renews until `stop` aborts (`outcome`). */
async function renewingLeader() {
  const clock = new FakeClock();
  const store = new MemoryLeaseStore();
  const a = elector('a', store, clock);
  assert.equal(await a.acquire(new AbortController().signal), true);
  const stop = new AbortController();
  return { clock, store, a, stop, outcome: a.renewUntilLost(stop.signal) };
}

test('the leader renews with one write over its last copy; a conflict (another writer) makes it read the Lease again', async () => {
  const { clock, store, a, stop, outcome } = await renewingLeader();
  const readsAtStart = store.reads;
  for (let i = 0; i < 10; i++) await clock.advance(1000);
  assert.equal(Number(store.lease?.metadata.resourceVersion), 11, 'ten renewals were written');
  assert.equal(store.reads, readsAtStart, 'none of them read the Lease first');
  // Someone else wrote the Lease (kubectl annotate, say): the next renewal conflicts, reads, and writes again.
  store.lease = { ...store.lease!, metadata: { ...store.lease!.metadata, resourceVersion: String(++store.rv) } };
  await clock.advance(1000);
  assert.equal(store.reads, readsAtStart + 1);
  assert.equal(store.lease?.spec?.holderIdentity, 'a');
  assert.equal(Number(store.lease?.metadata.resourceVersion), 13, 'renewed after the conflict');
  assert.equal(a.isLeader(), true);
  stop.abort();
  assert.equal(await outcome, 'stopped');
});

test('after a failed renewal the leader tries again within a quarter second, not a whole retry period', async () => {
  const { clock, store, a, stop, outcome } = await renewingLeader();
  await clock.advance(1000);
  const renewedAt = (await store.get())?.spec?.renewTime;
  store.failing = true;
  await clock.advance(1000); // this attempt fails
  store.failing = false;
  await clock.advance(300);
  assert.notEqual((await store.get())?.spec?.renewTime, renewedAt, 'renewed 250 ms after the failure');
  assert.equal(a.isLeader(), true);
  stop.abort();
  assert.equal(await outcome, 'stopped');
});

test('renewUntilLost ends with "stopped" when asked to stop', async () => {
  const clock = new FakeClock();
  const a = elector('a', new MemoryLeaseStore(), clock);
  await a.acquire(new AbortController().signal);
  const stop = new AbortController();
  const outcome = a.renewUntilLost(stop.signal);
  await clock.advance(2500);
  stop.abort();
  assert.equal(await outcome, 'stopped');
});
