// values.schema.json and the chart's own checks: wrong values stop helm template, lint and install with a message that
// names the value — before anything is applied.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { ok, startKubeCluster } from '@vigil/testing/kube/kube-cluster';
import { parseFlags } from '@vigil/operator/dist/src/config/flags.js';
import { CHART_DIR, helmLint, helmTemplate, parseObjects, writeValues } from './support/chart.js';

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
  { what: 'a memory limit in "Gb", which is no quantity', values: { recorder: { resources: { limits: { memory: '1Gb' } } } }, says: [/\/recorder\/resources\/limits\/memory/, /'1Gb' does not match pattern/] },
  { what: 'a CPU request with a space', values: { operator: { resources: { requests: { cpu: '100 m' } } } }, says: [/\/operator\/resources\/requests\/cpu/] },
  { what: 'one operator replica under the default disruption budget', values: { operator: { replicas: 1 } }, says: [/operator\.podDisruptionBudget\.minAvailable \(1\) must be below operator\.replicas \(1\)/, /operator\.podDisruptionBudget\.enabled=false/] },
  { what: 'a renew deadline as long as the lease', values: { operator: { leaderElection: { renewDeadline: '10s' } } }, says: [/operator\.leaderElection\.renewDeadline \(10s\) must be shorter than operator\.leaderElection\.leaseDuration \(6s\)/] },
  { what: 'a retry period as long as the renew deadline', values: { operator: { leaderElection: { retryPeriod: '4000ms' } } }, says: [/operator\.leaderElection\.retryPeriod \(4000ms\) must be shorter than operator\.leaderElection\.renewDeadline \(4s\)/] },
  { what: 'a node silence shorter than the heartbeat', values: { operator: { nodeSilence: 1 } }, says: [/operator\.nodeSilence \(1\) must be longer than the recorders' 2 s heartbeat/] },
  { what: 'a token name used twice', values: { auth: { tokens: [{ name: 'a', role: 'admin', sha256: 'ab'.repeat(32) }, { name: 'a', role: 'viewer', sha256: 'cd'.repeat(32) }] } }, says: [/auth\.tokens\[1\]\.name: "a" is used twice/] },
];

for (const c of WRONG) {
  test(`helm template refuses ${c.what}, naming it`, async (t) => {
    const result = await helmTemplate(t, c.values);
    assert.notEqual(result.code, 0, `rendered although wrong:\n${result.stdout.slice(0, 400)}`);
    for (const pattern of c.says) assert.match(result.stderr, pattern);
  });
}

test('durations in plain seconds work as the docs say: operator.nodeSilence=15 reaches the operator as 15 s', async (t) => {
  const result = await helmTemplate(t, {}, { extraArgs: ['--set', 'operator.nodeSilence=15', '--set', 'operator.leaderElection.leaseDuration=8', '--set', 'operator.replicas=1', '--set', 'operator.podDisruptionBudget.enabled=false'] });
  assert.equal(result.code, 0, result.stderr);
  const deployment = parseObjects(result.stdout).find((o) => o.kind === 'Deployment' && o.metadata.name === 'vigil-operator');
  const args = (deployment?.spec as { template: { spec: { containers: Array<{ args: string[] }> } } }).template.spec.containers[0]?.args ?? [];
  const flags = parseFlags(args.map((a) => (a.startsWith('--settings=') ? '--settings=/dev/null' : a)), {});
  assert.equal(flags.nodeSilenceMs, 15_000);
  assert.equal(flags.leaseDurationMs, 8_000);
  assert.equal(parseObjects(result.stdout).some((o) => o.kind === 'PodDisruptionBudget'), false, 'no budget for one replica');
});

test('helm lint passes with the defaults, the matrix and the production example, and fails on a wrong value', async (t) => {
  const lint = (args: string[]) => helmLint(t, args);
  assert.match(ok(await lint([]), 'lint'), /1 chart\(s\) linted, 0 chart\(s\) failed/);
  ok(await lint(['-f', join(CHART_DIR, 'examples/values-production.yaml')]), 'lint production example');
  ok(await lint(['--set', 'postgresql.enabled=true,ingress.enabled=true,serviceMonitor.enabled=true']), 'lint everything on');
  const bad = await lint(['--set', 'recorder.record.format=mkv']);
  assert.notEqual(bad.code, 0);
  assert.match(bad.stdout + bad.stderr, /\/recorder\/record\/format/);
});

test('helm install with a wrong value applies none of the release and says which value is wrong', async (t) => {
  const cluster = await startKubeCluster(t);
  const file = await writeValues(cluster.dir, { recorder: { record: { segmentSeconds: 0 } } });
  const result = await cluster.helm(['install', 'vigil', CHART_DIR, '-n', 'vigil', '--create-namespace', '-f', file]);
  assert.notEqual(result.code, 0);
  assert.match(result.stderr, /\/recorder\/record\/segmentSeconds/);
  // (helm installs the CRDs of crds/ before it checks the values; they are the only thing it leaves)
  assert.equal(ok(await cluster.kubectl(['get', 'secrets,configmaps,deployments,serviceaccounts,roles', '-A', '-l', 'app.kubernetes.io/instance=vigil', '-o', 'name']), 'objects'), '');
  assert.equal(ok(await cluster.kubectl(['get', 'secrets', '-A', '-l', 'owner=helm', '-o', 'name']), 'release records'), '');
});
