// A status write of a batch (assignment, Camera checks): the written object when it lands, 'gone' for an object
// deleted since the caches saw it, so that the other writes of the batch go on.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { API_VERSION, type Camera } from '@vigil/crds';
import { Resources, type KubeObject } from '@vigil/kube';
import { applyStatusInBatch } from '../../src/controllers/context.js';
import { inProcessOperator } from '../support/in-process.js';

test('a batch status write answers the written Camera, or gone for one deleted meanwhile (no error)', async (t) => {
  const { ctx, admin, signal, until, cluster } = await inProcessOperator(t);
  const ns = cluster.namespace;
  for (const name of ['door', 'yard']) {
    await admin.create(Resources.cameras, { apiVersion: API_VERSION, kind: 'Camera', metadata: { name, namespace: ns }, spec: { source: `rtsp://192.0.2.1/${name}` } } as KubeObject);
  }
  await until(() => ctx.caches.cameras.list().length === 2, 'both Cameras in the cache');
  const cached = (name: string) => ctx.caches.cameras.get(`${ns}/${name}`) as Camera;
  const door = cached('door');
  const yard = cached('yard');
  await admin.delete(Resources.cameras, ns, 'yard');

  const written = await applyStatusInBatch(ctx, Resources.cameras, ctx.caches.cameras, door, { phase: 'Pending' }, signal);
  assert.ok(typeof written === 'object', String(written));
  assert.equal(written.status?.phase, 'Pending');
  assert.equal((await admin.get<Camera>(Resources.cameras, ns, 'door'))?.status?.phase, 'Pending');
  assert.equal(await applyStatusInBatch(ctx, Resources.cameras, ctx.caches.cameras, yard, { phase: 'Pending' }, signal), 'gone');
});
