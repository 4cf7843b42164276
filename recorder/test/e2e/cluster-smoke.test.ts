// Smoke: kubectl apply of Cameras on a loopback cluster → every camera records on some node.
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { waitUntil } from '@vigil/testing/processes';
import { cameraManifests, startLoopbackCluster } from './cluster-fixture.js';

test('cluster smoke: six cameras applied with kubectl record two per node', { timeout: 240_000 }, async (t) => {
  const fx = await startLoopbackCluster(t, { nodes: ['node-a', 'node-b', 'node-c'], cameraCount: 6 });
  const names = ['cam-1', 'cam-2', 'cam-3', 'cam-4', 'cam-5', 'cam-6'];
  const file = join(fx.cluster.dir, 'cameras.yaml');
  await writeFile(file, cameraManifests(fx, names));
  await fx.cluster.kubectl('apply', '-n', fx.cluster.namespace, '-f', file);
  await waitUntil(async () => (await fx.cluster.cameras()).filter((c) => c.status?.phase === 'Recording').length === names.length, 90_000, 'every camera Recording');
  const byNode = new Map<string, number>();
  for (const c of await fx.cluster.cameras()) byNode.set(c.status?.node ?? '', (byNode.get(c.status?.node ?? '') ?? 0) + 1);
  assert.deepEqual(Object.fromEntries(byNode), { 'node-a': 2, 'node-b': 2, 'node-c': 2 });
  const table = await fx.cluster.kubectl('get', 'cameras', '-n', fx.cluster.namespace);
  assert.match(table, /NAME\s+NODE\s+PHASE\s+AGE/);
  console.log(table);
});
