// The Dockerfile, read where no Docker engine runs: its sources exist and are in the build context, the runtime stage
// holds only the runtime workspaces (no tests, fixtures or test control plane), runs as uid 10001, and starts binaries that exist.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { accessSync, constants, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { REPO_ROOT, renderChart, find } from './support/chart.js';

interface Instruction { stage: string; op: string; args: string }

/** Instructions of the Dockerfile with line continuations joined and comments dropped, each with its stage name. */
function instructions(): Instruction[] {
  const text = readFileSync(join(REPO_ROOT, 'Dockerfile'), 'utf8').replace(/\\\n/g, ' ');
  let stage = '';
  const out: Instruction[] = [];
  for (const line of text.split('\n')) {
    const m = /^\s*([A-Z]+)\s+(.*)$/.exec(line);
    if (!m || line.trimStart().startsWith('#')) continue;
    if (m[1] === 'FROM') stage = / AS (\S+)/i.exec(m[2]!)?.[1] ?? '';
    out.push({ stage, op: m[1]!, args: m[2]!.trim() });
  }
  return out;
}

const ignored = readFileSync(join(REPO_ROOT, '.dockerignore'), 'utf8').split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
/** .dockerignore's rules as this file uses them: exact paths, `dir` prefixes and `**\/name` anywhere. */
function isIgnored(path: string): boolean {
  return ignored.some((rule) => {
    if (rule.startsWith('**/')) return path.split('/').some((part) => part === rule.slice(3) || (rule.slice(3).startsWith('*') && part.endsWith(rule.slice(4))));
    return path === rule || path.startsWith(`${rule}/`);
  });
}

const rootPackage = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string; workspaces: string[] };

test('three stages: build, the runtime dependencies, and a runtime on the official Node bookworm slim image', () => {
  const all = instructions();
  assert.match(readFileSync(join(REPO_ROOT, 'Dockerfile'), 'utf8'), /^ARG NODE_IMAGE=node:20-bookworm-slim$/m);
  assert.deepEqual(all.filter((i) => i.op === 'FROM').map((i) => i.args), ['${NODE_IMAGE} AS build', '${NODE_IMAGE} AS deps', '${NODE_IMAGE} AS runtime']);
  assert.ok(all.some((i) => i.stage === 'build' && i.op === 'RUN' && /npm ci\b/.test(i.args)));
  assert.ok(all.some((i) => i.stage === 'build' && i.op === 'RUN' && i.args === 'npm run build'), 'npm run build (which bundles the web page too)');
  const runtimeRun = all.filter((i) => i.stage === 'runtime' && i.op === 'RUN').map((i) => i.args).join('\n');
  assert.match(runtimeRun, /apt-get install -y --no-install-recommends ffmpeg tini/, "Debian's ffmpeg");
});

test('every COPY from the build context names files that exist and that .dockerignore lets in', () => {
  for (const copy of instructions().filter((i) => i.op === 'COPY' && !i.args.startsWith('--from'))) {
    const sources = copy.args.split(/\s+/).slice(0, -1);
    for (const source of sources) {
      assert.ok(existsSync(join(REPO_ROOT, source)), `${copy.stage}: COPY ${source} exists`);
      assert.ok(!isIgnored(source), `${copy.stage}: COPY ${source} is not excluded by .dockerignore`);
    }
  }
  for (const kept of ['.git', '**/node_modules', '**/dist', 'testing/.tools', 'var']) assert.ok(ignored.includes(kept), `.dockerignore keeps ${kept} out`);
});

test('the runtime holds only the runtime workspaces: no test support, tests, fixtures or test control plane', () => {
  const all = instructions();
  const dockerfile = readFileSync(join(REPO_ROOT, 'Dockerfile'), 'utf8');
  const listed = /p\.workspaces = (\[[^\]]*\])/.exec(dockerfile);
  assert.ok(listed, 'the deps stage names its workspaces');
  const runtimeWorkspaces = JSON.parse(listed[1]!) as string[];
  assert.deepEqual(runtimeWorkspaces, rootPackage.workspaces.filter((w) => !['testing', 'deploy-tests', 'monitoring'].includes(w)), 'every workspace but the test ones and the build-time generator of the alerts and dashboard (update the Dockerfile when one is added)');
  for (const w of runtimeWorkspaces) {
    assert.ok(all.some((i) => i.stage === 'deps' && i.op === 'COPY' && i.args === `${w}/package.json ${w}/`), `deps: ${w}/package.json`);
    assert.ok(all.some((i) => i.stage === 'runtime' && i.op === 'COPY' && i.args === `--from=build /src/${w}/dist/src ${w}/dist/src`), `runtime: ${w}/dist/src`);
  }
  for (const copy of all.filter((i) => i.stage === 'runtime' && i.op === 'COPY')) {
    assert.doesNotMatch(copy.args, /testing|deploy-tests|fixtures|dist\/test|\/test\//, `runtime: ${copy.args}`);
    const from = /^--from=build \/src\/(\S+) /.exec(copy.args);
    if (from) assert.ok(existsSync(join(REPO_ROOT, from[1]!)), `${from[1]} exists after npm run build`);
  }
  assert.match(dockerfile, /npm ci --omit=dev/);
});

test('it runs as uid 10001, vigil-recorder is the entrypoint and vigil-operator the chart\'s command, both real files', async (t) => {
  const all = instructions().filter((i) => i.stage === 'runtime');
  assert.equal(all.filter((i) => i.op === 'USER').at(-1)?.args, '10001:10001');
  assert.equal(all.find((i) => i.op === 'ENTRYPOINT')?.args, '["/usr/bin/tini", "--", "vigil-recorder"]');
  const links = all.filter((i) => i.op === 'RUN').map((i) => i.args).join(' ');
  for (const [bin, file] of [['vigil-recorder', 'recorder/bin/vigil-recorder.js'], ['vigil-operator', 'operator/bin/vigil-operator.js']] as const) {
    assert.ok(links.includes(`ln -s /opt/vigil/${file} /usr/local/bin/${bin}`), `${bin} on PATH`);
    accessSync(join(REPO_ROOT, file), constants.X_OK);
    assert.match(readFileSync(join(REPO_ROOT, file), 'utf8'), /^#!\/usr\/bin\/env node\n/);
  }
  const deployment = find(await renderChart(t, {}), 'Deployment', 'vigil-operator').spec as { template: { spec: { containers: Array<{ command: string[] }> } } };
  assert.deepEqual(deployment.template.spec.containers[0]!.command, ['/usr/bin/tini', '--', 'vigil-operator']);
});

test('OCI labels carry the version passed as a build argument, which is the chart appVersion and package.json version', () => {
  const all = instructions().filter((i) => i.stage === 'runtime');
  assert.ok(all.some((i) => i.op === 'ARG' && i.args.startsWith('VERSION=')));
  const labels = all.filter((i) => i.op === 'LABEL').map((i) => i.args).join(' ');
  for (const key of ['title', 'description', 'version', 'revision', 'created', 'licenses']) assert.match(labels, new RegExp(`org\\.opencontainers\\.image\\.${key}=`));
  assert.match(labels, /org\.opencontainers\.image\.version="\$\{VERSION\}"/);
  const chart = parse(readFileSync(join(REPO_ROOT, 'helm/vigil/Chart.yaml'), 'utf8')) as { appVersion: string };
  assert.equal(chart.appVersion, rootPackage.version, 'the chart deploys the image tag the kind run builds');
  assert.deepEqual(all.find((i) => i.op === 'EXPOSE')?.args.split(' '), ['9997', '9998', '8080']);
});
