// The cluster camera source with a node's own credentials Secret, as the node's ServiceAccount: a camera assigned before
// its credentials reached the node's Secret is not recorded, and is the moment they arrive (the watch, no restart);
// a changed password is taken up; another node's Secret is neither seen nor readable; no password reaches the log.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Resources, type Secret } from '@vigil/kube';
import { tempDir } from '@vigil/testing/temp-dir';
import { CameraRegistry } from '../../src/cameras/registry.js';
import { AssignmentCache } from '../../src/cluster/assignment-cache.js';
import { ClusterCameraSource } from '../../src/cluster/cluster-camera-source.js';
import { configSchema } from '../../src/config/schema.js';
import { systemClock } from '../../src/util/clock.js';
import { nodeUnderTest } from '../support/cluster-view-fixture.js';
import { testLogger } from '../support/fakes.js';

const b64 = (s: string) => Buffer.from(s).toString('base64');

test('a camera waits for its credentials in the node\'s own Secret and records as soon as they arrive; other nodes\' Secrets stay out of reach', async (t) => {
  const n = await nodeUnderTest(t, 'node-a');
  const ns = n.cluster.namespace;
  const ref = { credentialsSecretRef: { name: 'door-login', usernameKey: 'username', passwordKey: 'password' } };
  await n.camera('door', ref, { node: 'node-a' });
  await n.camera('gate', ref, { node: 'node-b' });
  const { log, text } = testLogger('info');
  const source = new ClusterCameraSource({
    view: n.view, registry: new CameraRegistry(), config: configSchema.parse({}), nodeName: 'node-a', cache: new AssignmentCache(await tempDir(t, 'vigil-source-'), 'node-a'), clock: systemClock, log,
  });
  await source.start();
  t.after(() => source.stop());
  source.refresh();
  const published = () => source.cameras.map((c) => c.source);
  assert.deepEqual(published(), [], 'assigned, but no credentials for it yet');
  assert.match(text(), /camera assigned to this node cannot be recorded: the operator has not given this node the credentials of Secret door-login/);

  const secret = (node: string, data: Record<string, string>): Secret => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name: `vigil-camera-credentials-${node}`, namespace: ns }, type: 'Opaque', data } as Secret);
  await n.admin.create(Resources.secrets, secret('node-b', { 'gate.username': b64('gate'), 'gate.password': b64('Gate-Pw-9') }));
  const mine = await n.admin.create<Secret>(Resources.secrets, secret('node-a', { 'door.username': b64('admin'), 'door.password': b64('Door-Pw-1') }));
  await n.until(() => published().length === 1, 'door recorded once its credentials arrive');
  assert.deepEqual(published(), ['rtsp://admin:Door-Pw-1@192.0.2.10/door']);

  // A new password in the node's Secret: the camera is published again with it.
  await n.admin.replace<Secret>(Resources.secrets, { ...mine, data: { 'door.username': b64('admin'), 'door.password': b64('Door-Pw-2') } });
  await n.until(() => published()[0] === 'rtsp://admin:Door-Pw-2@192.0.2.10/door', 'the new password taken up');

  // Only its own Secret: the watch never brought node-b's, and reading it is refused.
  assert.deepEqual(n.view.credentials.list().map((s) => s.metadata.name), ['vigil-camera-credentials-node-a']);
  const refused = await n.client.get(Resources.secrets, ns, 'vigil-camera-credentials-node-b').then(() => 0, (err: { status?: number }) => err.status);
  assert.equal(refused, 403);
  assert.doesNotMatch(`${n.logText()}${text()}`, /Door-Pw|Gate-Pw/);
});
