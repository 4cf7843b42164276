// Least privilege and Camera feedback with the chart as installed: a node's recorder token from `kubectl create token`
// reads its own node's camera credentials Secret, which holds the cameras that node records and no other, and no other
// Secret (403 for the other nodes' copies, the admin token, the database URL, the cluster token, the license, Helm's
// release record and the user's own camera Secrets); after a failover the new node's Secret has the camera and the
// silent node's does not. And the operator reports a missing or refused credentials Secret and a source used twice on
// the Camera, condition and Warning Event, within seconds and with no recorder running at all.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { waitUntil } from '@vigil/testing/processes';
import { addNode, heartbeat, installWithOperator, NS } from './support/installed-release.js';

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
interface CameraObject { metadata: { name: string }; spec: { credentialsSecretRef?: { name: string } }; status?: { node?: string; handoverFrom?: string } }

const NODES = ['node-a', 'node-b', 'node-c'];

test('a node\'s recorder token reads only its own node\'s camera credentials; the operator reports Camera mistakes within seconds, with no recorder', async (t) => {
  const release = await installWithOperator(t, {
    database: { url: 'postgres://vigil:db-Secret-1@db.example.com:5432/vigil' }, license: { content: 'VIGIL-LICENSE\n' }, operator: { nodeSilence: '6s' },
  });
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

  // The Secret appears: the Camera says so at once.
  await kubectl(['-n', NS, 'create', 'secret', 'generic', 'gate-login', '--from-literal=username=gate', '--from-literal=password=Gate-Pw-2']);
  await waitFor('gate', 'CredentialsReady', 'True', 'SecretFound');

  // Three nodes appear: the operator makes each recorder's own ServiceAccount, bound to the chart's shared recorder
  // rules and to a Role of its own; the nodes heartbeat (as their own accounts) and the cameras are placed.
  for (const node of NODES) await addNode(release, node);
  await waitUntil(async () => (await cluster.kubectl(['-n', NS, 'get', 'rolebinding', ...NODES.map((n) => `vigil-recorder-${n}-shared`)])).code === 0, 30_000, 'the nodes\' recorder identities');
  const beats = new Map<string, Awaited<ReturnType<typeof heartbeat>>>();
  for (const node of NODES) beats.set(node, await heartbeat(t, release, node));
  const cameras = async () => (JSON.parse(await kubectl(['-n', NS, 'get', 'cam', '-o', 'json'])) as { items: CameraObject[] }).items;
  await waitUntil(async () => (await cameras()).every((c) => c.status?.node !== undefined), 30_000, 'every Camera placed');

  // Each node's token, as `kubectl create token` issues it, against the chart's RBAC and the Roles the operator made.
  const asNode = new Map<string, (args: string[]) => ReturnType<typeof cluster.kubectl>>();
  for (const node of NODES) {
    const token = (await kubectl(['-n', NS, 'create', 'token', `vigil-recorder-${node}`])).trim();
    const config = join(cluster.dir, `${node}.kubeconfig`);
    await cluster.controlPlane.writeKubeconfig(config, { token, namespace: NS, user: `vigil-recorder-${node}` });
    asNode.set(node, (args) => cluster.kubectl(['-n', NS, ...args], { kubeconfig: config }));
  }
  const asRecorder = asNode.get('node-a')!;
  /** The camera credentials a node reads with its own token: camera → password. */
  const readOwn = async (node: string): Promise<Record<string, string>> => {
    const r = await asNode.get(node)!(['get', 'secret', `vigil-camera-credentials-${node}`, '-o', 'json']);
    assert.equal(r.code, 0, r.stderr);
    const data = (JSON.parse(r.stdout) as { data?: Record<string, string> }).data ?? {};
    return Object.fromEntries(Object.entries(data).filter(([k]) => k.endsWith('.password')).map(([k, v]) => [k.slice(0, -'.password'.length), Buffer.from(v, 'base64').toString('utf8')]));
  };
  const passwords: Record<string, string> = { lobby: 'Lobby-Pw-1', 'lobby-again': 'Lobby-Pw-1', gate: 'Gate-Pw-2' };
  /** What a node should hold: the cameras it records or hands over whose credentials resolve (never sneaky's). */
  const expected = (cams: CameraObject[], node: string) => Object.fromEntries(cams.filter((c) => (c.status?.node === node || c.status?.handoverFrom === node) && passwords[c.metadata.name] !== undefined).map((c) => [c.metadata.name, passwords[c.metadata.name]]));
  const eachHoldsItsOwn = async (nodes: string[]) => {
    let last = '';
    await waitUntil(async () => {
      const cams = await cameras();
      const seen = await Promise.all(nodes.map(async (n) => [n, await readOwn(n), expected(cams, n)] as const));
      last = JSON.stringify(seen);
      return seen.every(([, have, want]) => JSON.stringify(have) === JSON.stringify(Object.fromEntries(Object.entries(want).sort())));
    }, 15_000, 'each node\'s Secret holding exactly its cameras').catch((err: Error) => {
      throw new Error(`${err.message}: ${last}`);
    });
  };
  await eachHoldsItsOwn(NODES);
  for (const node of NODES) {
    for (const other of NODES.filter((o) => o !== node)) {
      const denied = await asNode.get(node)!(['get', 'secret', `vigil-camera-credentials-${other}`]);
      assert.match(denied.stderr, new RegExp(`\\(Forbidden\\): secrets "vigil-camera-credentials-${other}" is forbidden: User "system:serviceaccount:vigil:vigil-recorder-${node}" cannot get`));
    }
  }
  const watched = await asRecorder(['get', 'secrets', '--field-selector', 'metadata.name=vigil-camera-credentials-node-a', '-o', 'name']);
  assert.equal(watched.stdout.trim(), 'secret/vigil-camera-credentials-node-a', 'the one list (and watch) the recorder makes is allowed');

  // Failover: the node recording gate goes silent; the node it moves to gets its credentials, the silent one loses them.
  const silentNode = (await cameras()).find((c) => c.metadata.name === 'gate')?.status?.node ?? '';
  beats.get(silentNode)!.stop();
  let newNode = '';
  await waitUntil(async () => {
    newNode = (await cameras()).find((c) => c.metadata.name === 'gate')?.status?.node ?? '';
    return newNode !== silentNode;
  }, 30_000, 'gate to fail over');
  t.diagnostic(`gate failed over from ${silentNode} to ${newNode}`);
  assert.equal((await readOwn(newNode)).gate, 'Gate-Pw-2', 'the new node has the credentials once it sees the camera');
  await eachHoldsItsOwn(NODES);
  assert.equal((await readOwn(silentNode)).gate, undefined, 'the silent node has them no longer');

  const helmRecord = (await kubectl(['-n', NS, 'get', 'secret', '-l', 'owner=helm', '-o', 'name'])).trim().replace(/^secret\//, '');
  assert.match(helmRecord, /^sh\.helm\.release\.v1\.vigil\.v1$/);
  for (const name of ['vigil-admin-token', 'vigil-database', 'vigil-cluster-token', 'vigil-api-tokens', 'vigil-license', helmRecord, 'lobby-login', 'vigil-camera-credentials']) {
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
  for (const [node, beat] of beats) assert.deepEqual(beat.errors, [], `${node}'s heartbeat was refused`);
});
