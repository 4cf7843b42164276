// Fragment memory: regions carved from blocks, a block reused only once every holder has let go and no viewer got it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FragmentMemory } from '../../src/media/fragment-memory.js';

test('fragment memory: regions of one slab do not overlap; a large request gets a block of its own', () => {
  const memory = new FragmentMemory({ slabBytes: 4096 });
  const a = memory.take(100);
  const b = memory.take(300);
  assert.equal(a.data.buffer, b.data.buffer, 'small regions share a slab');
  assert.equal(a.lease, b.lease, 'and its lease');
  a.data.fill(1);
  b.data.fill(2);
  assert.ok(a.data.every((x) => x === 1), 'writing one region leaves the other alone');
  assert.equal(a.data.length, 100);
  assert.equal(memory.allocations, 1);
  const large = memory.take(3000);
  assert.notEqual(large.data.buffer, a.data.buffer);
  assert.equal(large.data.length, 3000);
  assert.equal(memory.allocations, 2);
  assert.throws(() => new FragmentMemory({ slabBytes: 100 }), RangeError);
});

test('fragment memory: a full slab is carved again only after every hold on it has ended', () => {
  const memory = new FragmentMemory({ slabBytes: 4096, poison: true });
  const first = memory.take(2000);
  first.data.fill(7);
  const holdA = first.lease.hold();
  const holdB = first.lease.hold();
  memory.take(2000); // fills the first slab
  const next = memory.take(2000); // a second slab: the first is full and still held
  assert.notEqual(next.data.buffer, first.data.buffer);
  assert.equal(memory.allocations, 2);
  holdA();
  holdA(); // a second call of the same release does nothing
  assert.equal(memory.pooledBytes, 0, 'one holder is left');
  assert.ok(first.data.every((x) => x === 7), 'the bytes of a held block stay as they were');
  holdB();
  assert.equal(memory.pooledBytes, 4096, 'free once nobody holds it');
  assert.ok(first.data.every((x) => x === 0xee), 'poisoned on its way back to the pool (tests use this to catch an early release)');
  // The second slab, held by nobody, is free as soon as it is full: from here on the two slabs go round.
  const buffers = new Set([first.data.buffer, next.data.buffer]);
  for (let i = 0; i < 10; i++) assert.ok(buffers.has(memory.take(2000).data.buffer as ArrayBuffer), `take ${i} comes from one of the two slabs`);
  assert.equal(memory.allocations, 2);
  assert.ok(memory.reuses >= 4);
});

test('fragment memory: a block that went to a live viewer is never reused', () => {
  const memory = new FragmentMemory({ slabBytes: 4096 });
  const large = memory.take(3000);
  const release = large.lease.hold();
  large.lease.keepForever();
  release();
  assert.equal(memory.pooledBytes, 0);
  const again = memory.take(3000);
  assert.notEqual(again.data.buffer, large.data.buffer);
  // A block nobody kept is reused by the next large request that fits it.
  again.lease.hold()();
  assert.equal(memory.take(2500).data.buffer, again.data.buffer);
});

test('fragment memory: the pool keeps at most poolBytes; the rest is left to the garbage collector', () => {
  const memory = new FragmentMemory({ slabBytes: 4096, poolBytes: 64 * 1024 });
  // Blocks of their own come in multiples of 32 KiB.
  const holds = Array.from({ length: 4 }, () => memory.take(3000).lease.hold());
  for (const release of holds) release();
  assert.equal(memory.pooledBytes, 64 * 1024, 'two of the four 32 KiB blocks');
  // A request larger than every pooled block drops them instead of keeping them beside a new one.
  const big = memory.take(40_000);
  assert.equal(memory.pooledBytes, 0);
  big.lease.hold()();
  assert.equal(memory.pooledBytes, 64 * 1024);
  assert.equal(memory.take(5000).data.buffer, big.data.buffer, 'a smaller request fits the pooled block');
});
