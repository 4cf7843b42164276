// What the kind run is made of, checked here where it cannot run: shellcheck over every shell script, the workflow's
// structure, the kind config (3 nodes, hostPath mounts), its values against the chart schema, its manifests against the API.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { accessSync, constants, readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { ok, runCommand, startKubeCluster } from '@vigil/testing/kube/kube-cluster';
import { CHART_DIR, REPO_ROOT, find, renderChart } from './support/chart.js';

const read = (path: string) => readFileSync(join(REPO_ROOT, path), 'utf8');
const SKIP = new Set(['node_modules', 'dist', '.git', 'var', '.tools', '__pycache__', '.bench-out']);

/** Every shell script of the repository: *.sh, and files whose first line is a sh/bash shebang. */
function shellScripts(dir = REPO_ROOT): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (SKIP.has(entry.name)) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...shellScripts(path));
    else if (entry.isFile() && (entry.name.endsWith('.sh') || (statSync(path).size < 1_000_000 && /^#!.*\b(ba)?sh\b/.test(readFileSync(path, 'utf8').split('\n', 1)[0] ?? '')))) found.push(path);
  }
  return found;
}

test('shellcheck finds nothing in any shell script of the repository', async () => {
  const scripts = shellScripts();
  const names = scripts.map((s) => relative(REPO_ROOT, s));
  for (const expected of ['scripts/setup.sh', 'kind-test/run.sh', '.ci/run']) assert.ok(names.includes(expected), `${expected} among ${names.join(', ')}`);
  const result = await runCommand('shellcheck', ['--severity=style', ...scripts]);
  assert.equal(result.code, 0, `shellcheck (Debian package shellcheck; scripts/setup.sh test installs it):\n${result.stdout}${result.stderr}`);
});

test('the kind workflow runs kind-test/run.sh on a Docker-capable runner, with node and kind installed first', () => {
  const workflow = parse(read('.github/workflows/kind.yml')) as { on: Record<string, unknown>; jobs: Record<string, { 'runs-on': string; 'timeout-minutes': number; steps: Array<{ uses?: string; run?: string; with?: Record<string, unknown> }> }> };
  assert.ok('workflow_dispatch' in workflow.on, 'can be started by hand');
  const job = workflow.jobs.kind;
  assert.ok(job, 'job kind');
  assert.match(job['runs-on'], /^ubuntu-/);
  assert.ok(job['timeout-minutes'] > 0 && job['timeout-minutes'] <= 90);
  const uses = job.steps.map((s) => s.uses ?? '');
  assert.ok(uses.some((u) => u.startsWith('actions/checkout@')), 'checks out');
  const node = job.steps.find((s) => s.uses?.startsWith('actions/setup-node@'));
  assert.equal(String(node?.with?.['node-version']), '20');
  const runs = job.steps.map((s) => s.run ?? '');
  const kindAt = runs.findIndex((r) => /go install sigs\.k8s\.io\/kind@v\d/.test(r));
  const scriptAt = runs.findIndex((r) => /\bkind-test\/run\.sh\b/.test(r));
  assert.ok(kindAt >= 0 && scriptAt > kindAt, 'kind is installed before the run');
  accessSync(join(REPO_ROOT, 'kind-test/run.sh'), constants.X_OK);
  accessSync(join(REPO_ROOT, 'kind-test/scenario.mjs'), constants.R_OK);
});

test('run.sh uses files that exist, the token of the kind values, and the image version of package.json', () => {
  const script = read('kind-test/run.sh');
  for (const path of script.match(/kind-test\/[\w.-]+/g) ?? []) accessSync(join(REPO_ROOT, path), constants.R_OK);
  const values = parse(read('kind-test/values.yaml')) as { auth: { tokens: Array<{ token: string }> } };
  assert.ok(script.includes(`VIGIL_KIND_TOKEN="${values.auth.tokens[0]!.token}"`), 'the scenario gets the token the chart hashes');
  assert.match(script, /--build-arg VERSION="\$version"/);
  assert.match(script, /version="\$\(node -p 'require\("\.\/package\.json"\)\.version'\)"/);
  assert.match(script, /scripts\/setup\.sh kind/);
});

test('the kind config: 3 nodes (a control plane and 2 workers), each mounting its own host folders at the chart\'s hostPath roots', () => {
  const config = parse(read('kind-test/kind-config.yaml').replaceAll('__DATA__', '/tmp/kind-data')) as { kind: string; nodes: Array<{ role: string; extraMounts: Array<{ hostPath: string; containerPath: string }> }> };
  assert.equal(config.kind, 'Cluster');
  assert.deepEqual(config.nodes.map((n) => n.role), ['control-plane', 'worker', 'worker']);
  const chartValues = parse(readFileSync(join(CHART_DIR, 'values.yaml'), 'utf8')) as { recorder: { hostPaths: { recordings: string; data: string } } };
  const hostPaths = new Set<string>();
  for (const node of config.nodes) {
    assert.deepEqual(node.extraMounts.map((m) => m.containerPath).sort(), [chartValues.recorder.hostPaths.data, chartValues.recorder.hostPaths.recordings].sort());
    for (const m of node.extraMounts) hostPaths.add(m.hostPath);
  }
  assert.equal(hostPaths.size, 6, 'every node has folders of its own');
});

test('the kind values pass the chart schema and install PostgreSQL on the control plane with the loaded image', async (t) => {
  const values = parse(read('kind-test/values.yaml')) as Record<string, unknown>;
  const objects = await renderChart(t, { ...values, image: { ...(values.image as object), tag: '0.1.0' } });
  const sts = find(objects, 'StatefulSet', 'vigil-postgresql').spec as { template: { spec: { nodeSelector: Record<string, string> } } };
  assert.deepEqual(sts.template.spec.nodeSelector, { 'node-role.kubernetes.io/control-plane': '' });
  const settings = parse((find(objects, 'ConfigMap', 'vigil-operator-settings').data as Record<string, string>)['settings.yaml']!) as { recorder: { image: string; imagePullPolicy: string } };
  assert.deepEqual([settings.recorder.image, settings.recorder.imagePullPolicy], ['vigil:0.1.0', 'Never']);
});

test('the kind manifests (RTSP camera, Cameras, their credentials) are accepted by the API with strict validation', async (t) => {
  const cluster = await startKubeCluster(t);
  ok(await cluster.kubectl(['apply', '--server-side', '-f', join(CHART_DIR, 'crds')]), 'CRDs');
  ok(await cluster.kubectl(['wait', '--for=condition=Established', '--timeout=20s', 'crd/cameras.vigil.io']), 'established');
  ok(await cluster.kubectl(['create', 'namespace', 'vigil']), 'namespace');
  for (const file of ['kind-test/rtsp-camera.yaml', 'kind-test/cameras.yaml', 'helm/vigil/examples/camera-credentials.yaml', 'helm/vigil/examples/cameras.yaml']) {
    ok(await cluster.kubectl(['-n', 'vigil', 'apply', '--server-side', '--validate=strict', '-f', join(REPO_ROOT, file)]), file);
  }
  const cameras = parseAllDocuments(read('kind-test/cameras.yaml')).map((d) => d.toJS() as { kind: string; metadata: { name: string }; spec?: { source: string; credentialsSecretRef?: { name: string } } });
  const secret = cameras.find((o) => o.kind === 'Secret')!.metadata.name;
  const service = parseAllDocuments(read('kind-test/rtsp-camera.yaml')).map((d) => d.toJS() as { kind: string; metadata: { name: string }; spec: { ports?: Array<{ port: number }> } }).find((o) => o.kind === 'Service')!;
  for (const cam of cameras.filter((o) => o.kind === 'Camera')) {
    assert.equal(cam.spec?.credentialsSecretRef?.name, secret);
    const url = new URL(cam.spec!.source);
    assert.equal(url.hostname, service.metadata.name);
    assert.ok(service.spec.ports?.some((p) => p.port === Number(url.port)), `${cam.metadata.name}: port ${url.port} served`);
  }
  assert.equal(ok(await cluster.kubectl(['-n', 'vigil', 'get', 'cameras', '-o', 'name']), 'cameras').trim().split('\n').length, 6);
});

test('the RTSP camera image copies the fixture files it runs, and listens on every address of its Pod', () => {
  const dockerfile = read('kind-test/rtsp-camera.Dockerfile');
  const copy = /^COPY (.+) \/opt\/rtsp-camera\/$/m.exec(dockerfile);
  assert.ok(copy, 'COPY … /opt/rtsp-camera/');
  for (const file of copy[1]!.split(/\s+/)) accessSync(join(REPO_ROOT, 'testing/fixtures', file), constants.R_OK);
  assert.match(dockerfile, /^ENV RTSP_BIND_ADDRESS=0\.0\.0\.0$/m);
  assert.match(read('testing/fixtures/rtsp_serve.py'), /os\.environ\.get\("RTSP_BIND_ADDRESS"\)/);
  assert.match(dockerfile, /^USER \d+/m);
});
