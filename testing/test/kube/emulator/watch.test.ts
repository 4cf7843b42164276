// Watch semantics: from a resourceVersion, initial events with the initial-events-end bookmark, selector transitions, Table events, timeouts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startEmulatorFixture } from './emulator-fixture.js';
import { openWatch } from './watch-reader.js';

const CM = '/api/v1/namespaces/default/configmaps';

test('a watch replays what happened after its resourceVersion, then follows; selectors turn leaving objects into DELETED', async (t) => {
  const f = await startEmulatorFixture(t);
  await f.request('POST', CM, { metadata: { name: 'before', labels: { app: 'a' } } });
  const rv = ((await f.request('GET', CM)).body as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
  await f.request('POST', CM, { metadata: { name: 'after', labels: { app: 'a' } } });
  const all = await openWatch(`${f.emulator.url}${CM}?watch=true&resourceVersion=${rv}`, f.emulator.adminToken);
  const selected = await openWatch(`${f.emulator.url}${CM}?watch=true&resourceVersion=${rv}&labelSelector=app%3Da`, f.emulator.adminToken);
  t.after(() => { all.close(); selected.close(); });
  await all.waitFor((e) => e.some((x) => x.object.metadata?.name === 'after'), 'the replayed event');
  assert.deepEqual(all.events.map((e) => `${e.type} ${e.object.metadata?.name}`), ['ADDED after'], 'nothing from before the resourceVersion');

  await f.request('PATCH', `${CM}/before`, { metadata: { labels: { app: 'b' } } }, { contentType: 'application/merge-patch+json' });
  await f.request('PATCH', `${CM}/before`, { metadata: { labels: { app: 'a' } } }, { contentType: 'application/merge-patch+json' });
  await f.request('DELETE', `${CM}/after`);
  await selected.waitFor((e) => e.length >= 4, 'the selected watch to see four events');
  assert.deepEqual(selected.events.map((e) => `${e.type} ${e.object.metadata?.name}`), ['ADDED after', 'DELETED before', 'ADDED before', 'DELETED after']);
  await all.waitFor((e) => e.length >= 4, 'the unfiltered watch to see four events');
  assert.deepEqual(all.events.map((e) => e.type), ['ADDED', 'MODIFIED', 'MODIFIED', 'DELETED']);
  const versions = all.events.map((e) => Number(e.object.metadata?.resourceVersion));
  assert.deepEqual([...versions].sort((a, b) => a - b), versions, 'resourceVersions increase');
});

test('sendInitialEvents streams the current objects and ends them with the k8s.io/initial-events-end bookmark; timeoutSeconds ends a watch', async (t) => {
  const f = await startEmulatorFixture(t);
  for (const name of ['x', 'y', 'z']) await f.request('POST', CM, { metadata: { name } });
  const w = await openWatch(`${f.emulator.url}${CM}?watch=true&sendInitialEvents=true&allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan&timeoutSeconds=2`, f.emulator.adminToken);
  t.after(() => w.close());
  await w.waitFor((e) => e.some((x) => x.type === 'BOOKMARK'), 'the initial-events-end bookmark');
  const initial = w.events.slice(0, -1);
  assert.deepEqual(new Set(initial.map((e) => `${e.type} ${e.object.metadata?.name}`)), new Set(['ADDED x', 'ADDED y', 'ADDED z']));
  const bookmark = w.events[w.events.length - 1];
  assert.equal(bookmark?.object.metadata?.annotations?.['k8s.io/initial-events-end'], 'true');
  assert.ok(Number(bookmark?.object.metadata?.resourceVersion) > 0);
  await w.waitFor(() => w.ended, 'timeoutSeconds to end the watch', 60_000);
});

test('a watch asking for Table gets one-row Tables with the printer columns', async (t) => {
  const f = await startEmulatorFixture(t);
  const accept = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json';
  const w = await openWatch(`${f.emulator.url}/api/v1/namespaces/default/pods?watch=true`, f.emulator.adminToken, accept);
  t.after(() => w.close());
  await f.request('POST', '/api/v1/namespaces/default/pods', { metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'busybox' }] } });
  await w.waitFor((e) => e.length > 0, 'a Table event');
  const table = w.events[0]?.object as { kind: string; columnDefinitions: Array<{ name: string }>; rows: Array<{ cells: unknown[]; object: { kind: string; metadata: { name: string } } }> };
  assert.equal(table.kind, 'Table');
  assert.deepEqual(table.columnDefinitions.map((c) => c.name).slice(0, 5), ['Name', 'Ready', 'Status', 'Restarts', 'Age']);
  assert.deepEqual(table.rows[0]?.cells.slice(0, 4), ['p', '0/1', 'Pending', '0']);
  assert.equal(table.rows[0]?.object.kind, 'PartialObjectMetadata');
  assert.equal(table.rows[0]?.object.metadata.name, 'p');
});
