// Scale: 500 Cameras and 10 RecorderNodes with several watchers and selectors, as Vigil's benchmark loads the emulator (figures as diagnostics).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import yaml from 'js-yaml';
import { FIXTURES, startEmulatorFixture } from './emulator-fixture.js';
import { openWatch } from './watch-reader.js';

const CAMERAS = 500;
const NODES = 10;

async function inBatches(count: number, width: number, work: (i: number) => Promise<void>): Promise<void> {
  for (let start = 0; start < count; start += width) {
    await Promise.all(Array.from({ length: Math.min(width, count - start) }, (_, k) => work(start + k)));
  }
}

test('500 Cameras and 10 RecorderNodes: every watcher sees every change, selectors stay exact, lists stay quick', async (t) => {
  const f = await startEmulatorFixture(t);
  for (const file of ['camera-crd.yaml', 'recordernode-crd.yaml']) {
    const crd = yaml.load(await readFile(join(FIXTURES, file), 'utf8'));
    assert.equal((await f.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd)).status, 201);
  }
  const cams = '/apis/vigil.io/v1alpha1/namespaces/default/cameras';
  const watchUrl = (q = '') => `${f.emulator.url}${cams}?watch=true&allowWatchBookmarks=true${q}`;
  const everything = [await openWatch(watchUrl(), f.emulator.adminToken), await openWatch(watchUrl(), f.emulator.adminToken)];
  const nodeThree = await openWatch(watchUrl('&labelSelector=vigil.io%2Fnode%3Dn3'), f.emulator.adminToken);
  t.after(() => { for (const w of [...everything, nodeThree]) w.close(); });

  let started = Date.now();
  await inBatches(NODES, NODES, async (i) => {
    const res = await f.request('POST', '/apis/vigil.io/v1alpha1/recordernodes', { apiVersion: 'vigil.io/v1alpha1', kind: 'RecorderNode', metadata: { name: `n${i}` }, spec: { nodeName: `n${i}` } });
    assert.equal(res.status, 201);
  });
  await inBatches(CAMERAS, 25, async (i) => {
    const res = await f.request('POST', cams, { apiVersion: 'vigil.io/v1alpha1', kind: 'Camera', metadata: { name: `cam-${i}`, labels: { 'vigil.io/node': `n${i % NODES}` } }, spec: { source: `rtsp://192.0.2.${i % 250}/s` } });
    assert.equal(res.status, 201);
  });
  t.diagnostic(`created ${CAMERAS} cameras in ${Date.now() - started} ms`);

  started = Date.now();
  await inBatches(CAMERAS, 25, async (i) => {
    const res = await f.request('PATCH', `${cams}/cam-${i}/status`, { status: { node: `n${i % NODES}`, phase: 'Recording', observedGeneration: 1 } }, { contentType: 'application/merge-patch+json' });
    assert.equal(res.status, 200);
  });
  t.diagnostic(`${CAMERAS} status patches in ${Date.now() - started} ms`);

  const changes = (events: Array<{ type: string }>) => events.filter((e) => e.type !== 'BOOKMARK').length;
  for (const w of everything) await w.waitFor((e) => changes(e) >= 2 * CAMERAS, `all ${2 * CAMERAS} events on a full watch`, 30_000);
  await nodeThree.waitFor((e) => changes(e) >= (2 * CAMERAS) / NODES, 'the n3 watcher\'s events', 30_000);
  for (const w of everything) assert.equal(changes(w.events), 2 * CAMERAS);
  assert.equal(changes(nodeThree.events), (2 * CAMERAS) / NODES);
  assert.ok(nodeThree.events.every((e) => e.type === 'BOOKMARK' || (e.object.metadata as { labels?: Record<string, string> } | undefined)?.labels?.['vigil.io/node'] === 'n3'));

  started = Date.now();
  for (let i = 0; i < 20; i++) {
    const all = (await f.request('GET', cams)).body as { items: unknown[] };
    assert.equal(all.items.length, CAMERAS);
  }
  t.diagnostic(`list of ${CAMERAS} cameras: ${((Date.now() - started) / 20).toFixed(1)} ms each`);
  started = Date.now();
  for (let i = 0; i < 20; i++) {
    const some = (await f.request('GET', `${cams}?labelSelector=vigil.io%2Fnode%3Dn7`)).body as { items: unknown[] };
    assert.equal(some.items.length, CAMERAS / NODES);
  }
  t.diagnostic(`label-selected list: ${((Date.now() - started) / 20).toFixed(1)} ms each`);
  const table = await f.kubectl(['get', 'cameras', '--no-headers']);
  assert.equal(table.stdout.trim().split('\n').length, CAMERAS);
});
