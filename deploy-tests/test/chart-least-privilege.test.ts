// Least privilege and Camera feedback with the chart as installed: a recorder's token from `kubectl create token` reads
// the operator's copy of the camera credentials and no other Secret (403 for the admin token, the database URL, the
// cluster token, the license, Helm's release record and the user's own camera Secrets); and the operator reports a
// missing or refused credentials Secret and a source used twice on the Camera, condition and Warning Event, within
// seconds and with no recorder running at all.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { waitUntil } from '@vigil/testing/processes';
import { addNode, installWithOperator, NS } from './support/installed-release.js';

const CAMERAS = `apiVersion: vigil.io/v1alpha1
kind: Camera
metadata: {name: lobby}
spec: {source: "rtsp://192.0.2.10/stream1", credentialsSecretRef: {name: lobby-login}}
---
apiVersion: vigil.io/v1alpha1
kind: Camera
metadata: {name: lobby-again}
spec: {source: "rtsp://192.0.2.10:554/stream1", credentialsSecretRef: {name: lobby-login}}
---
apiVersion: vigil.io/v1alpha1
kind: Camera
metadata: {name: gate}
spec: {source: "rtsp://192.0.2.11/stream1", credentialsSecretRef: {name: gate-login}}
---
apiVersion: vigil.io/v1alpha1
kind: Camera
metadata: {name: sneaky}
spec: {source: "rtsp://192.0.2.12/stream1", credentialsSecretRef: {name: vigil-admin-token, usernameKey: token, passwordKey: token}}
`;

interface Condition { type: string; status: string; reason: string; message: string }

test('a recorder token reads only the camera credentials copy; the operator reports Camera mistakes within seconds, with no recorder', async (t) => {
  const release = await installWithOperator(t, { database: { url: 'postgres://vigil:db-Secret-1@db.example.com:5432/vigil' }, license: { content: 'VIGIL-LICENSE\n' } });
  const { cluster, operator, kubectl } = release;
  await kubectl(['-n', NS, 'create', 'secret', 'generic', 'lobby-login', '--from-literal=username=admin', '--from-literal=password=Lobby-Pw-1']);
  const applied = Date.now();
  await kubectl(['-n', NS, 'apply', '-f', '-'], CAMERAS);

  const conditionOf = async (camera: string, type: string): Promise<Condition | undefined> => {
    const cam = JSON.parse(await kubectl(['-n', NS, 'get', 'cam', camera, '-o', 'json'])) as { status?: { conditions?: Condition[] } };
    return cam.status?.conditions?.find((c) => c.type === type);
  };
  const waitFor = async (camera: string, type: string, status: string, reason: string): Promise<Condition> => {
    let last: Condition | undefined;
    try {
      await waitUntil(async () => (last = await conditionOf(camera, type))?.status === status && last?.reason === reason, 10_000, `${camera}: ${type}=${status} ${reason}`);
    } catch (err) {
      console.log(await kubectl(['-n', NS, 'get', 'cam', camera, '-o', 'yaml', '--show-managed-fields']));
      console.log(operator.output.join('\n'));
      throw err;
    }
    return last as Condition;
  };
  const missing = await waitFor('gate', 'CredentialsReady', 'False', 'SecretMissing');
  assert.match(missing.message, /Secret gate-login does not exist in namespace vigil/);
  const refused = await waitFor('sneaky', 'CredentialsReady', 'False', 'SecretRefused');
  assert.match(refused.message, /vigil-admin-token/);
  assert.match((await waitFor('lobby', 'SourceUnique', 'False', 'DuplicateSource')).message, /^Camera lobby-again has the same source/);
  assert.match((await waitFor('lobby-again', 'SourceUnique', 'False', 'DuplicateSource')).message, /^Camera lobby has the same source/);
  await waitFor('lobby', 'CredentialsReady', 'True', 'SecretFound');
  assert.ok(Date.now() - applied < 15_000, 'reported within seconds');
  assert.equal(await kubectl(['get', 'rn', '-o', 'name']), '', 'no node, no recorder: the operator alone reported');
  // The Warning Events name the Secret and the other Camera, as `kubectl describe cam` shows them.
  const described = await kubectl(['-n', NS, 'describe', 'cam', 'gate']);
  assert.match(described, /Warning\s+SecretMissing\s+.*Secret gate-login does not exist/);
  await waitUntil(async () => /Warning\s+DuplicateSource\s+.*Camera lobby-again has the same source/.test(await kubectl(['-n', NS, 'describe', 'cam', 'lobby'])), 10_000, 'the DuplicateSource Event');

  // The Secret appears: the Camera says so at once, and the recorders' copy has its credentials (never the refused one's).
  await kubectl(['-n', NS, 'create', 'secret', 'generic', 'gate-login', '--from-literal=username=gate', '--from-literal=password=Gate-Pw-2']);
  await waitFor('gate', 'CredentialsReady', 'True', 'SecretFound');

  // A node appears: the operator makes its recorder's own ServiceAccount, bound to the chart's shared recorder rules.
  // Its token, as `kubectl create token` issues it, against the chart's RBAC.
  await addNode(release, 'node-a');
  await waitUntil(async () => (await cluster.kubectl(['-n', NS, 'get', 'rolebinding', 'vigil-recorder-node-a-shared'])).code === 0, 30_000, 'the node\'s recorder identity');
  const token = (await kubectl(['-n', NS, 'create', 'token', 'vigil-recorder-node-a'])).trim();
  const recorderConfig = join(cluster.dir, 'recorder.kubeconfig');
  await cluster.emulator.writeKubeconfig(recorderConfig, { token, namespace: NS, user: 'vigil-recorder' });
  const asRecorder = (args: string[]) => cluster.kubectl(['-n', NS, ...args], { kubeconfig: recorderConfig });
  const password = async (camera: string) => {
    const r = await asRecorder(['get', 'secret', 'vigil-camera-credentials', '-o', `jsonpath={.data.${camera}\\.password}`]);
    assert.equal(r.code, 0, r.stderr);
    return Buffer.from(r.stdout, 'base64').toString('utf8');
  };
  await waitUntil(async () => (await password('gate')) === 'Gate-Pw-2', 10_000, 'the copy has the new credentials');
  assert.equal(await password('lobby'), 'Lobby-Pw-1');
  assert.equal(await password('sneaky'), '', 'a refused Secret is never copied');
  const watched = await asRecorder(['get', 'secrets', '--field-selector', 'metadata.name=vigil-camera-credentials', '-o', 'name']);
  assert.equal(watched.stdout.trim(), 'secret/vigil-camera-credentials', 'the one list (and watch) the recorder makes is allowed');

  const helmRecord = (await kubectl(['-n', NS, 'get', 'secret', '-l', 'owner=helm', '-o', 'name'])).trim().replace(/^secret\//, '');
  assert.match(helmRecord, /^sh\.helm\.release\.v1\.vigil\.v1$/);
  for (const name of ['vigil-admin-token', 'vigil-database', 'vigil-cluster-token', 'vigil-api-tokens', 'vigil-license', helmRecord, 'lobby-login']) {
    const denied = await asRecorder(['get', 'secret', name]);
    assert.equal(denied.code, 1, `${name} must not be readable`);
    assert.match(denied.stderr, new RegExp(`Error from server \\(Forbidden\\): secrets "${name.replace(/\./g, '\\.')}" is forbidden: User "system:serviceaccount:vigil:vigil-recorder-node-a" cannot get resource "secrets" in API group "" in the namespace "vigil"`));
  }
  const list = await asRecorder(['get', 'secrets']);
  assert.match(list.stderr, /\(Forbidden\): secrets is forbidden: User "system:serviceaccount:vigil:vigil-recorder-node-a" cannot list resource "secrets"/);
  assert.equal((await asRecorder(['auth', 'can-i', 'watch', 'secrets'])).stdout.trim(), 'no');
  // Whatever the operator logged along the way, no credential is in it.
  assert.doesNotMatch(operator.output.join('\n'), /Lobby-Pw-1|Gate-Pw-2|db-Secret-1/);
  assert.deepEqual(operator.forbidden(), [], 'the operator never met a 403');
});
