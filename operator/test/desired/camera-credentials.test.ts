// Camera credentials: which Secret a Camera may take them from, what each node's copy holds, the checks' conditions.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Secret } from '@vigil/kube';
import { parseSettings } from '../../src/config/settings.js';
import { checkCredentials, credentialsByNode, desiredNodeCredentialsSecret, reservedSecrets } from '../../src/desired/camera-credentials.js';
import { checksChanged, desiredCheckConditions } from '../../src/desired/camera-checks.js';
import { duplicateSources, sourceIdentity } from '../../src/desired/duplicate-sources.js';
import { camera, recorderNode } from '../support/objects.js';

const b64 = (s: string): string => Buffer.from(s).toString('base64');
const settings = parseSettings({
  recorder: { image: 'vigil:1', configMap: 'vigil-recorder', rbac: { clusterRole: 'vigil-vigil-recorder', role: 'vigil-recorder' }, secrets: { apiTokens: 'vigil-api-tokens', clusterToken: 'vigil-cluster-token', database: 'vigil-database' } },
  reservedSecrets: ['vigil-admin-token'],
});
const reserved = reservedSecrets(settings);
const secrets: Record<string, Secret> = {
  'lobby-login': { metadata: { name: 'lobby-login' }, data: { username: b64('admin'), password: b64('pw') } },
  'half': { metadata: { name: 'half' }, data: { username: b64('admin') } },
  'vigil-admin-token': { metadata: { name: 'vigil-admin-token' }, data: { username: b64('x'), password: b64('y') } },
};
const secretOf = (name: string): Secret | undefined => secrets[name];
const withRef = (name: string, secret: string, keys: { usernameKey?: string; passwordKey?: string } = {}, status = {}) => camera(name, status, { credentialsSecretRef: { name: secret, usernameKey: keys.usernameKey ?? 'username', passwordKey: keys.passwordKey ?? 'password' } });

test('a credentialsSecretRef resolves, is missing, lacks a key, or names one of Vigil\'s own Secrets', () => {
  assert.equal(checkCredentials(camera('a'), secretOf, reserved).reason, 'NoCredentialsRef');
  const found = checkCredentials(withRef('a', 'lobby-login'), secretOf, reserved);
  assert.deepEqual([found.ok, found.reason], [true, 'SecretFound']);
  const missing = checkCredentials(withRef('a', 'nope'), secretOf, reserved);
  assert.deepEqual([missing.ok, missing.reason], [false, 'SecretMissing']);
  assert.match(missing.message, /Secret nope does not exist in namespace vigil/);
  const half = checkCredentials(withRef('a', 'half'), secretOf, reserved);
  assert.deepEqual([half.reason, half.message.includes('no key password')], ['SecretKeyMissing', true]);
  for (const own of ['vigil-admin-token', 'vigil-api-tokens', 'vigil-cluster-token', 'vigil-database', 'vigil-camera-credentials', 'vigil-camera-credentials-node-b']) {
    assert.equal(checkCredentials(withRef('a', own), secretOf, reserved).reason, 'SecretRefused', own);
  }
});

test('each node\'s copy holds the credentials of the cameras it records or hands over, and nothing refused', () => {
  const cams = [
    withRef('lobby', 'lobby-login', {}, { node: 'node-a' }),
    withRef('door', 'lobby-login', {}, { node: 'node-b', handoverFrom: 'node-a' }),
    withRef('pending', 'lobby-login'),
    withRef('x', 'vigil-admin-token', {}, { node: 'node-a' }),
    withRef('y', 'half', {}, { node: 'node-a' }),
    camera('open', { node: 'node-a' }),
    withRef('elsewhere', 'lobby-login', {}, { node: 'gone' }),
  ];
  const pair = { username: b64('admin'), password: b64('pw') };
  const keys = (id: string) => ({ [`${id}.username`]: pair.username, [`${id}.password`]: pair.password });
  const byNode = credentialsByNode(cams, ['node-a', 'node-b', 'node-c'], secretOf, reserved);
  assert.deepEqual(Object.fromEntries(byNode), { 'node-a': { ...keys('door'), ...keys('lobby') }, 'node-b': keys('door'), 'node-c': {} });
  // A move about to be written: the new node gets the camera too, before its status says so.
  const moving = credentialsByNode(cams, ['node-a', 'node-b', 'node-c'], secretOf, reserved, (c) => (c.metadata.name === 'lobby' ? ['node-c'] : []));
  assert.deepEqual(moving.get('node-c'), keys('lobby'));
  assert.deepEqual(moving.get('node-a'), byNode.get('node-a'));
});

test('a node\'s copy is named after it, owned by its RecorderNode, and refused as a camera\'s credentials Secret', () => {
  const secret = desiredNodeCredentialsSecret(recorderNode('node-a'), {}, 'vigil');
  assert.equal(secret.metadata.name, 'vigil-camera-credentials-node-a');
  assert.deepEqual(secret.metadata.ownerReferences?.map((o) => [o.kind, o.name, o.uid]), [['RecorderNode', 'node-a', 'uid-rn-node-a']]);
  assert.equal(secret.type, 'Opaque');
  const long = desiredNodeCredentialsSecret(recorderNode(`${'n'.repeat(240)}.example.com`), {}, 'vigil').metadata.name ?? '';
  assert.ok(long.length <= 253 && /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(long), long);
  assert.equal(checkCredentials(withRef('a', long), secretOf, reserved).reason, 'SecretRefused');
});

test('one source, two Cameras: compared without credentials, host case or the default port', () => {
  assert.equal(sourceIdentity('rtsp://admin:pw@CAM.example:554/live?ch=1'), sourceIdentity('rtsp://cam.example/live?ch=1'));
  assert.notEqual(sourceIdentity('rtsp://cam.example/live?ch=1'), sourceIdentity('rtsp://cam.example/live?ch=2'));
  assert.notEqual(sourceIdentity('rtsp://cam.example/live'), sourceIdentity('rtsps://cam.example/live'));
  const cams = [camera('a', {}, { source: 'rtsp://10.0.0.1/s' }), camera('b', {}, { source: 'rtsp://u:p@10.0.0.1:554/s' }), camera('c', {}, { source: 'rtsp://10.0.0.1/other' })];
  assert.deepEqual([...duplicateSources(cams)].sort(), [['a', ['b']], ['b', ['a']]]);
});

test('the checks\' conditions name the Secret and the other Camera, never a URL; unchanged checks write nothing', () => {
  const cam = withRef('lobby', 'nope');
  const conditions = desiredCheckConditions(cam, checkCredentials(cam, secretOf, reserved), ['door'], 1_000);
  assert.deepEqual(conditions.map((c) => [c.type, c.status, c.reason]), [['CredentialsReady', 'False', 'SecretMissing'], ['SourceUnique', 'False', 'DuplicateSource']]);
  assert.match(conditions[1]?.message ?? '', /^Camera door has the same source/);
  assert.doesNotMatch(JSON.stringify(conditions), /rtsp:/);
  assert.equal(checksChanged(cam, conditions), true);
  const written = { ...cam, status: { conditions } };
  const later = desiredCheckConditions(written, checkCredentials(written, secretOf, reserved), ['door'], 9_000);
  assert.equal(checksChanged(written, later), false);
  assert.deepEqual(later.map((c) => c.lastTransitionTime), conditions.map((c) => c.lastTransitionTime), 'the transition time stays');
});
