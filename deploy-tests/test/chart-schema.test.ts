// values.schema.json and the chart's own checks: wrong values stop helm template, lint and install with a message that
// names the value — before anything is applied.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { ok, startEmulatedCluster } from '@vigil/testing/kube/emulated-cluster';
import { CHART_DIR, helmTemplate, writeValues } from './support/chart.js';

/** Each case: what a user might write, and what the error must say. */
const WRONG: Array<{ what: string; values: Record<string, unknown>; says: RegExp[] }> = [
  { what: 'a misspelt key', values: { recorder: { recrd: { format: 'mp4' } } }, says: [/\/recorder/, /additional properties 'recrd' not allowed/] },
  { what: 'an unknown pull policy', values: { image: { pullPolicy: 'Sometimes' } }, says: [/\/image\/pullPolicy/, /'Always', 'IfNotPresent', 'Never'/] },
  { what: 'a segment length of 0', values: { recorder: { record: { segmentSeconds: 0 } } }, says: [/\/recorder\/record\/segmentSeconds/, /minimum/] },
  { what: 'a record format the recorder does not write', values: { recorder: { record: { format: 'mkv' } } }, says: [/\/recorder\/record\/format/, /'fmp4', 'mp4'/] },
  { what: 'a relative hostPath', values: { recorder: { hostPaths: { recordings: 'recordings' } } }, says: [/\/recorder\/hostPaths\/recordings/, /pattern/] },
  { what: 'a token role that does not exist', values: { auth: { tokens: [{ name: 'ops', role: 'root', sha256: 'ab'.repeat(32) }] } }, says: [/\/auth\/tokens\/0\/role/, /'viewer', 'operator', 'admin'/] },
  { what: 'a token entry with neither token nor sha256', values: { auth: { tokens: [{ name: 'ops', role: 'admin' }] } }, says: [/\/auth\/tokens\/0/, /token|sha256/] },
  { what: 'a sha256 that is not 64 hex digits', values: { auth: { tokens: [{ name: 'ops', role: 'admin', sha256: 'abc' }] } }, says: [/\/auth\/tokens\/0\/sha256/] },
  { what: 'a node host template without {node}', values: { ingress: { enabled: true, nodeHostTemplate: 'nodes.example.com' } }, says: [/\/ingress\/nodeHostTemplate/, /pattern/] },
  { what: 'a database URL that is not PostgreSQL', values: { database: { url: 'mysql://db:3306/vigil' } }, says: [/\/database\/url/] },
  { what: 'a replica count as a string', values: { operator: { replicas: 'two' } }, says: [/\/operator\/replicas/, /integer/] },
  { what: 'a grace period the recorder cannot close in', values: { recorder: { terminationGracePeriodSeconds: 5 } }, says: [/\/recorder\/terminationGracePeriodSeconds/, /minimum/] },
  { what: 'two databases at once', values: { database: { url: 'postgres://vigil:x@db:5432/vigil' }, postgresql: { enabled: true } }, says: [/set only one of database\.url, database\.existingSecret and postgresql\.enabled/] },
  { what: 'tokens and an existing tokens Secret', values: { auth: { existingSecret: 'mine', tokens: [{ name: 'a', role: 'admin', sha256: 'ab'.repeat(32) }] } }, says: [/set auth\.tokens or auth\.existingSecret, not both/] },
  { what: 'a token name used twice', values: { auth: { tokens: [{ name: 'a', role: 'admin', sha256: 'ab'.repeat(32) }, { name: 'a', role: 'viewer', sha256: 'cd'.repeat(32) }] } }, says: [/auth\.tokens\[1\]\.name: "a" is used twice/] },
];

for (const c of WRONG) {
  test(`helm template refuses ${c.what}, naming it`, async (t) => {
    const result = await helmTemplate(t, c.values);
    assert.notEqual(result.code, 0, `rendered although wrong:\n${result.stdout.slice(0, 400)}`);
    for (const pattern of c.says) assert.match(result.stderr, pattern);
  });
}

test('helm lint passes with the defaults, the matrix and the production example, and fails on a wrong value', async (t) => {
  const cluster = await startEmulatedCluster(t);
  const lint = (args: string[]) => cluster.helm(['lint', CHART_DIR, '--strict', ...args]);
  assert.match(ok(await lint([]), 'lint'), /1 chart\(s\) linted, 0 chart\(s\) failed/);
  ok(await lint(['-f', join(CHART_DIR, 'examples/values-production.yaml')]), 'lint production example');
  ok(await lint(['--set', 'postgresql.enabled=true,ingress.enabled=true,serviceMonitor.enabled=true']), 'lint everything on');
  const bad = await lint(['--set', 'recorder.record.format=mkv']);
  assert.notEqual(bad.code, 0);
  assert.match(bad.stdout + bad.stderr, /\/recorder\/record\/format/);
});

test('helm install with a wrong value applies none of the release and says which value is wrong', async (t) => {
  const cluster = await startEmulatedCluster(t);
  const file = await writeValues(cluster.dir, { recorder: { record: { segmentSeconds: 0 } } });
  const result = await cluster.helm(['install', 'vigil', CHART_DIR, '-n', 'vigil', '--create-namespace', '-f', file]);
  assert.notEqual(result.code, 0);
  assert.match(result.stderr, /\/recorder\/record\/segmentSeconds/);
  // (helm installs the CRDs of crds/ before it checks the values; they are the only thing it leaves)
  assert.equal(ok(await cluster.kubectl(['get', 'secrets,configmaps,deployments,serviceaccounts,roles', '-A', '-l', 'app.kubernetes.io/instance=vigil', '-o', 'name']), 'objects'), '');
  assert.equal(ok(await cluster.kubectl(['get', 'secrets', '-A', '-l', 'owner=helm', '-o', 'name']), 'release records'), '');
});
