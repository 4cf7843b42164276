// The node metrics record: load as a percentage of all cores, GiB rounded down, storage of record_path, ISO time with offset.
import assert from 'node:assert/strict';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { tempDir } from '@vigil/testing/temp-dir';
import { readNodeMetrics, systemProbe } from '../../src/metrics/node-metrics.js';

const GIB = 1024 ** 3;

test('meanings of the record fields', async () => {
  const record = await readNodeMetrics('node-a', '/srv/rec', {
    loadAverage1m: () => 1.5,
    cores: () => 4,
    memory: () => ({ totalBytes: 8 * GIB - 1, freeBytes: 2.5 * GIB }),
    storage: async (path) => {
      assert.equal(path, '/srv/rec');
      return { freeBytes: 100.9 * GIB, usedBytes: 20.2 * GIB };
    },
    now: () => new Date('2026-11-22T10:15:00Z'),
  });
  assert.equal(record.cpu_load, 38, '1.5 of 4 cores = 37.5 % → 38');
  assert.equal(record.mem_total_gb, 7, 'rounded down');
  assert.equal(record.mem_used_gb, 5);
  assert.equal(record.storage_free_gb, 100);
  assert.equal(record.storage_used_gb, 20);
  assert.equal(record.online, true);
  assert.equal(record.node_name, 'node-a');
  assert.match(record.timestamp, /^2026-11-22T\d\d:\d\d:00[+-]\d\d:\d\d$/);
});

test('the real machine gives integers', async () => {
  const record = await readNodeMetrics('here', '/', systemProbe);
  for (const k of ['cpu_load', 'mem_used_gb', 'mem_total_gb', 'storage_free_gb', 'storage_used_gb'] as const) assert.ok(Number.isInteger(record[k]) && record[k] >= 0, k);
});

test('a record_path that is missing or not a directory gives storage figures of 0, not a failure', async (t) => {
  const dir = await tempDir(t);
  const missing = join(dir, 'unmounted', 'recordings');
  const record = await readNodeMetrics('here', missing, systemProbe);
  assert.equal(record.storage_free_gb, 0);
  assert.equal(record.storage_used_gb, 0);
  assert.equal(record.online, true);
  assert.ok(record.mem_total_gb >= 0 && Number.isInteger(record.cpu_load), 'the rest of the record is there');
  const file = join(dir, 'a-file');
  await writeFile(file, 'not a directory');
  const underFile = await readNodeMetrics('here', join(file, 'recordings'), systemProbe);
  assert.equal(underFile.storage_free_gb, 0);
  await rm(file);
});
