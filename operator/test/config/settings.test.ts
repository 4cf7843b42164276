// The settings file: defaults, and errors that name the key to fix.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { loadSettings, parseSettings, SettingsError } from '../../src/config/settings.js';

const minimal = { recorder: { image: 'vigil/recorder:1', configMap: 'vigil-recorder', rbac: { clusterRole: 'vigil-vigil-recorder', role: 'vigil-recorder' }, secrets: { apiTokens: 'tokens', clusterToken: 'cluster' } } };

test('a minimal settings file gets the defaults of the contract', () => {
  const s = parseSettings(minimal);
  assert.deepEqual(s.recorder.ports, { api: 9997, metrics: 9998 });
  assert.equal(s.recorder.terminationGracePeriodSeconds, 30);
  assert.deepEqual(s.recorder.hostPaths, { recordings: '/var/lib/vigil/recordings', data: '/var/lib/vigil/data', prepare: true });
  assert.deepEqual(s.recorder.resources, { requests: { cpu: '500m', memory: '256Mi' }, limits: { memory: '1Gi' } });
  assert.deepEqual(s.reservedSecrets, []);
  assert.equal(s.ownerClusterRole, undefined);
  assert.equal(s.recorder.imagePullPolicy, 'IfNotPresent');
  assert.deepEqual(s.recorder.imagePullSecrets, []);
  assert.equal(s.ingress, undefined);
});

test('errors name every key to fix', () => {
  assert.throws(
    () => parseSettings({ recorder: { image: '', configMap: 'Bad_Name', secrets: { apiTokens: 't' }, ports: { api: 70000 } }, ingress: { hostTemplate: 'vigil.example.com' } }),
    (err: unknown) => {
      assert.ok(err instanceof SettingsError);
      for (const key of ['recorder.image', 'recorder.configMap', 'recorder.rbac', 'recorder.secrets.clusterToken', 'recorder.ports.api', 'ingress.hostTemplate']) assert.match(err.message, new RegExp(key.replace(/\./g, '\\.')));
      return true;
    },
  );
  assert.throws(() => parseSettings({ ...minimal, extra: 1 }), /extra|Unrecognized/);
});

test('resource quantities follow the API server\'s grammar: 1Gb, 1 Gi or -1 are refused with the key to fix', () => {
  const withMemory = (memory: unknown) => ({ ...minimal, recorder: { ...minimal.recorder, resources: { limits: { memory } } } });
  for (const good of ['1Gi', '1536Mi', '500m', '1', '1.5', '1e3', '0.5G', 256]) assert.doesNotThrow(() => parseSettings(withMemory(good)), String(good));
  for (const bad of ['1Gb', '1 Gi', '1GB', '-1Gi', 'lots', '']) {
    assert.throws(() => parseSettings(withMemory(bad)), (err: unknown) => err instanceof SettingsError && /recorder\.resources\.limits\.memory/.test(err.message) && /quantit/.test(err.message), String(bad));
  }
});

test('loadSettings reads YAML and says which file is wrong', () => {
  const dir = mkdtempSync(join(tmpdir(), 'vigil-settings-'));
  const good = join(dir, 'good.yaml');
  writeFileSync(good, 'recorder:\n  image: vigil/recorder:1\n  configMap: vigil-recorder\n  rbac: {clusterRole: vigil-vigil-recorder, role: vigil-recorder}\n  secrets: {apiTokens: t, clusterToken: c}\n');
  assert.equal(loadSettings(good).recorder.image, 'vigil/recorder:1');
  const bad = join(dir, 'bad.yaml');
  writeFileSync(bad, 'recorder: [');
  assert.throws(() => loadSettings(bad), (err: unknown) => err instanceof SettingsError && err.message.includes(bad));
  assert.throws(() => loadSettings(join(dir, 'missing.yaml')), /cannot be read/);
});
