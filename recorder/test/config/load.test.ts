// Configuration loading: defaults, conf.d merging, and messages that name the key to fix.
import assert from 'node:assert/strict';
import { writeFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config/load.js';
import { tempDir } from '@vigil/testing/temp-dir';

async function write(dir: string, name: string, text: string): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, text);
  return path;
}

async function loadError(dir: string, text: string): Promise<string> {
  const file = await write(dir, `c${Math.random().toString(36).slice(2)}.yaml`, text);
  await assert.rejects(loadConfig({ file }), ConfigError);
  return loadConfig({ file }).then(
    () => '',
    (err: Error) => err.message,
  );
}

test('a minimal file gets the documented defaults', async (t) => {
  const dir = await tempDir(t);
  const file = await write(dir, 'config.yaml', 'auth:\n  disabled: true\n');
  const cfg = await loadConfig({ file });
  assert.equal(cfg.nodeName, '');
  assert.equal(cfg.listen, undefined);
  assert.equal(cfg.record_path, '/var/lib/vigil/recordings');
  assert.equal(cfg.work_dir, '/var/lib/vigil');
  assert.equal(cfg.record.format, 'fmp4');
  assert.equal(cfg.record.segment_seconds, 60);
  assert.equal(cfg.record.retention.min_free_percent, 5);
  assert.equal(cfg.record.retention.max_age_days, undefined);
  assert.equal(cfg.stall_seconds, 10);
  assert.deepEqual(cfg.cameras, []);
});

test('conf.d files override keys in lexical order and merge cameras by id', async (t) => {
  const dir = await tempDir(t);
  const confDir = join(dir, 'conf.d');
  await mkdir(confDir);
  const file = await write(
    dir,
    'config.yaml',
    ['nodeName: a', 'record:', '  segment_seconds: 30', 'cameras:', '  - id: front', '    source: rtsp://h/1', '  - id: back', '    source: rtsp://h/2'].join('\n'),
  );
  await write(confDir, '20-late.yaml', 'nodeName: c\ncameras:\n  - id: front\n    source: rtsp://h/front-new\n    ptz: true\n');
  await write(confDir, '10-early.yaml', 'nodeName: b\nrecord:\n  format: mp4\ncameras:\n  - id: side\n    source: "testsrc:"\n');
  await write(confDir, 'ignored.txt', 'nodeName: nope');
  const cfg = await loadConfig({ file, confDir });
  assert.equal(cfg.nodeName, 'c');
  assert.equal(cfg.record.format, 'mp4');
  assert.equal(cfg.record.segment_seconds, 30, 'a nested key not overridden stays');
  assert.deepEqual(
    cfg.cameras.map((c) => [c.id, c.source, c.ptz]),
    [
      ['front', 'rtsp://h/front-new', true],
      ['back', 'rtsp://h/2', false],
      ['side', 'testsrc:', false],
    ],
  );
});

test('a bad camera id names its key path and the rule', async (t) => {
  const dir = await tempDir(t);
  const msg = await loadError(dir, 'cameras:\n  - id: ok\n    source: "testsrc:"\n  - id: "bad id/.."\n    source: "testsrc:"\n');
  assert.match(msg, /cameras\[1\]\.id: must match \^\[A-Za-z0-9\]\[A-Za-z0-9\._-\]\{0,63\}\$/);
});

test('every kind of bad value is reported with its path', async (t) => {
  const dir = await tempDir(t);
  assert.match(await loadError(dir, 'listen: "9997"\n'), /^listen: must be "host:port" or ":port"$/m);
  assert.match(await loadError(dir, 'listen: ":70000"\n'), /^listen: port must be 0 to 65535$/m);
  assert.match(await loadError(dir, 'record:\n  format: avi\n'), /^record\.format: /m);
  assert.match(await loadError(dir, 'record:\n  segment_seconds: 0\n'), /^record\.segment_seconds: /m);
  assert.match(await loadError(dir, 'stall_seconds: soon\n'), /^stall_seconds: /m);
  assert.match(await loadError(dir, 'recrod_path: /x\n'), /recrod_path/);
  assert.match(await loadError(dir, 'auth:\n  tokens:\n    - {name: a, role: root, sha256: abc}\n'), /^auth\.tokens\[0\]\.role: /m);
  assert.match(await loadError(dir, 'auth:\n  tokens:\n    - {name: a, role: admin, sha256: abc}\n'), /^auth\.tokens\[0\]\.sha256: must be the hex SHA-256/m);
  assert.match(await loadError(dir, 'cameras:\n  - id: a\n    source: http://x/\n'), /^cameras\[0\]\.source: must be an rtsp/m);
  assert.match(await loadError(dir, 'cameras:\n  - id: a\n    source: "testsrc:"\n  - id: a\n    source: "testsrc:"\n'), /cameras\[1\]\.id: duplicates cameras\[0\]\.id "a"/);
  assert.match(await loadError(dir, 'cameras: [\n'), /not valid YAML at line/);
  assert.match(await loadError(dir, '- just\n- a list\n'), /must be a mapping/);
});

test('a missing config file is an error that names the file', async (t) => {
  const dir = await tempDir(t);
  await assert.rejects(loadConfig({ file: join(dir, 'nope.yaml') }), /nope\.yaml: cannot be read \(ENOENT\)/);
});

test('environment variables override the files: node name, cluster URLs and namespace, database URL; a bad value names its variable', async (t) => {
  const dir = await tempDir(t);
  const file = await write(dir, 'config.yaml', 'nodeName: from-file\ncluster:\n  enabled: true\n  advertise_url: http://file.example:9997\nauth:\n  disabled: true\n');
  const env = {
    VIGIL_NODE_NAME: 'node-b',
    VIGIL_CLUSTER_NAMESPACE: 'vigil',
    VIGIL_CLUSTER_ADVERTISE_URL: 'http://vigil-recorder-node-b.vigil.svc:9997',
    VIGIL_CLUSTER_PUBLIC_URL: 'https://node-b.vigil.example.com',
    VIGIL_DATABASE_URL: 'postgres://vigil@db/vigil',
    VIGIL_UNRELATED: 'x',
  };
  const cfg = await loadConfig({ file }, env);
  assert.equal(cfg.nodeName, 'node-b');
  assert.deepEqual({ ns: cfg.cluster.namespace, adv: cfg.cluster.advertise_url, pub: cfg.cluster.public_url }, { ns: 'vigil', adv: env.VIGIL_CLUSTER_ADVERTISE_URL, pub: env.VIGIL_CLUSTER_PUBLIC_URL });
  assert.equal(cfg.database?.url, 'postgres://vigil@db/vigil');
  assert.equal(cfg.cluster.dataDir, '/var/lib/vigil/data');
  assert.equal((await loadConfig({ file }, { VIGIL_NODE_NAME: '  ' })).nodeName, 'from-file', 'an empty variable overrides nothing');
  await assert.rejects(loadConfig({ file }, { VIGIL_CLUSTER_PUBLIC_URL: 'https://u:p@node-b.example.com' }), /cluster\.public_url: must be an http:\/\/ or https:\/\/ base URL.*\(set by VIGIL_CLUSTER_PUBLIC_URL\)/);
});

test('cluster mode needs the node’s advertised URL', async (t) => {
  const dir = await tempDir(t);
  const message = await loadError(dir, 'cluster:\n  enabled: true\n');
  assert.match(message, /cluster\.advertise_url: is required when cluster\.enabled is true/);
});

test('tls: both files or neither, no other keys; with tls a cluster node advertises https:// (an http:// one is refused, also from the environment)', async (t) => {
  const dir = await tempDir(t);
  const ok = await loadConfig({ file: await write(dir, 'ok.yaml', 'auth: {disabled: true}\ntls: {cert_file: /etc/vigil/tls/vigil.crt, key_file: /etc/vigil/tls/vigil.key}\ncluster: {tls: {ca_file: /etc/vigil/tls/ca.crt}}\n') });
  assert.deepEqual(ok.tls, { cert_file: '/etc/vigil/tls/vigil.crt', key_file: '/etc/vigil/tls/vigil.key' });
  assert.equal(ok.cluster.tls?.ca_file, '/etc/vigil/tls/ca.crt');
  assert.equal((await loadConfig({ file: await write(dir, 'plain.yaml', 'auth: {disabled: true}\n') })).tls, undefined, 'no tls: plain HTTP');

  assert.match(await loadError(dir, 'tls: {cert_file: /a.crt}\n'), /tls\.key_file: /);
  assert.match(await loadError(dir, 'tls: {cert_file: /a.crt, key_file: /a.key, ciphers: RC4}\n'), /tls: .*ciphers/);
  assert.match(await loadError(dir, 'cluster: {tls: {ca_file: ""}}\n'), /cluster\.tls\.ca_file: /);

  const clustered = 'nodeName: n1\ntls: {cert_file: /a.crt, key_file: /a.key}\ncluster:\n  enabled: true\n  advertise_url: http://n1.vigil.svc:9997\n';
  assert.match(await loadError(dir, clustered), /cluster\.advertise_url: must be an https:\/\/ URL when tls is set/);
  const file = await write(dir, 'clustered.yaml', clustered);
  assert.equal((await loadConfig({ file }, { VIGIL_CLUSTER_ADVERTISE_URL: 'https://n1.vigil.svc:9997' })).cluster.advertise_url, 'https://n1.vigil.svc:9997');
  await assert.rejects(loadConfig({ file }, { VIGIL_CLUSTER_ADVERTISE_URL: 'http://n1.vigil.svc:9997' }), /cluster\.advertise_url: must be an https:\/\/ URL when tls is set .*\(set by VIGIL_CLUSTER_ADVERTISE_URL\)/);
});
