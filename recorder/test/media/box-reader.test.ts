// Unit tests for box header parsing, child iteration, the bounded cursor and the chunk queue.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  BoxCursor, BoxFormatError, findChild, isPlausibleBoxType, iterateBoxes, readBoxHeader, readFullBoxHeader,
} from '../../src/media/box-reader.js';
import { ChunkQueue } from '../../src/media/chunk-queue.js';
import { box, fullBox, largeBox, u32, u64 } from './box-builder.js';

test('readBoxHeader: 32-bit size', () => {
  const b = box('free', Buffer.alloc(10));
  assert.deepEqual(readBoxHeader(b, 0), { type: 'free', start: 0, headerSize: 8, size: 18, end: 18, toEnd: false });
  assert.equal(readBoxHeader(b, 0, 7), null, 'needs 8 bytes');
});

test('readBoxHeader: size==1 uses the 64-bit largesize', () => {
  const b = largeBox('mdat', Buffer.alloc(5));
  assert.deepEqual(readBoxHeader(b, 0), { type: 'mdat', start: 0, headerSize: 16, size: 21, end: 21, toEnd: false });
  assert.equal(readBoxHeader(b, 0, 12), null, 'needs 16 bytes');
  const huge = Buffer.concat([u32(1), Buffer.from('mdat'), u64(2n ** 50n)]);
  assert.equal(readBoxHeader(huge, 0)?.size, 2 ** 50, 'may exceed the buffer; caller decides');
  assert.throws(() => readBoxHeader(Buffer.concat([u32(1), Buffer.from('mdat'), u64(2n ** 63n)]), 0), BoxFormatError);
  assert.throws(() => readBoxHeader(Buffer.concat([u32(1), Buffer.from('mdat'), u64(15)]), 0), /invalid size 15/);
});

test('readBoxHeader: size==0 extends to the limit', () => {
  const b = Buffer.concat([box('ftyp', Buffer.alloc(4)), u32(0), Buffer.from('mdat'), Buffer.alloc(20)]);
  const h = readBoxHeader(b, 12);
  assert.deepEqual(h, { type: 'mdat', start: 12, headerSize: 8, size: 28, end: 40, toEnd: true });
  assert.equal(readBoxHeader(b, 12, 30)?.end, 30);
});

test('readBoxHeader: uuid usertype is part of the header; bad sizes throw', () => {
  const b = box('uuid', Buffer.alloc(16, 7), Buffer.alloc(3));
  assert.equal(readBoxHeader(b, 0)?.headerSize, 24);
  assert.equal(readBoxHeader(b, 0, 20), null);
  for (const size of [2, 7]) assert.throws(() => readBoxHeader(Buffer.concat([u32(size), Buffer.from('free')]), 0), BoxFormatError);
  assert.equal(isPlausibleBoxType('moof'), true);
  assert.equal(isPlausibleBoxType('\0\0\0\0'), false);
});

test('readFullBoxHeader and iterateBoxes', () => {
  const child = fullBox('mfhd', 1, 0xabcdef, u32(5));
  assert.deepEqual(readFullBoxHeader(child, 8), { version: 1, flags: 0xabcdef });
  const parent = box('moof', child, box('traf', box('tfhd')), box('free'));
  const top = readBoxHeader(parent, 0);
  assert.ok(top);
  assert.deepEqual([...iterateBoxes(parent, 8, parent.length)].map((h) => [h.type, h.start, h.size]), [
    ['mfhd', 8, 16], ['traf', 24, 16], ['free', 40, 8],
  ]);
  assert.equal(findChild(parent, top, 'traf')?.start, 24);
  assert.equal(findChild(parent, top, 'tfdt'), undefined);
  const overrun = Buffer.concat([u32(8 + 8), Buffer.from('moof'), u32(100), Buffer.from('traf')]);
  assert.throws(() => [...iterateBoxes(overrun, 8, overrun.length)], /overruns its parent/);
});

test('BoxCursor reads big-endian values and refuses to read past the box', () => {
  const b = fullBox('tfdt', 1, 0, u64(2 ** 40 + 5));
  const h = readBoxHeader(b, 0);
  assert.ok(h);
  const cur = BoxCursor.body(b, h);
  assert.deepEqual(cur.fullBox(), { version: 1, flags: 0 });
  assert.equal(cur.u64(), 2 ** 40 + 5);
  assert.equal(cur.remaining, 0);
  assert.throws(() => cur.u8(), /truncated 'tfdt'/);
});

test('ChunkQueue peeks across chunks and takes zero-copy slices', () => {
  const q = new ChunkQueue();
  for (const s of ['ab', '', 'cde', 'f', 'ghij']) q.push(Buffer.from(s));
  assert.equal(q.length, 10);
  assert.equal(q.peek(4).toString(), 'abcd');
  assert.deepEqual(q.take(3).map(String), ['ab', 'c']);
  assert.equal(q.peek(100).toString(), 'defghij');
  assert.deepEqual(q.take(5).map(String), ['de', 'f', 'gh']);
  assert.equal(q.length, 2);
  assert.throws(() => q.take(3), RangeError);
  assert.deepEqual(q.take(2).map(String), ['ij']);
  assert.equal(q.length, 0);
  for (let i = 0; i < 5000; i++) q.push(Buffer.from([i & 0xff]));
  for (let i = 0; i < 5000; i++) assert.equal(q.take(1)[0]?.[0], i & 0xff);
});
