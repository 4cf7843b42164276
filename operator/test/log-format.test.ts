// vigil-operator's log: readable lines on a terminal or with --log-format pretty, JSON lines otherwise; --version.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { runCommand } from '@vigil/testing/command';
import { OPERATOR_BIN } from '@vigil/testing/kube/operator-process';
import { SETTINGS_YAML } from '@vigil/testing/kube/test-cluster';
import { runUntil, stripAnsi } from '@vigil/testing/log-output';
import { tempDir } from '@vigil/testing/temp-dir';

/** The operator against an API server that refuses connections: it starts, logs, and retries until stopped. */
async function operatorRun(t: TestContext, extra: string[]): Promise<{ argv: string[]; env: NodeJS.ProcessEnv }> {
  const dir = await tempDir(t, 'vigil-operator-log-');
  writeFileSync(join(dir, 'settings.yaml'), SETTINGS_YAML);
  writeFileSync(join(dir, 'kubeconfig'), `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:1", insecure-skip-tls-verify: true}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: c, context: {cluster: c, user: u, namespace: vigil}}]
current-context: c
`);
  const env: NodeJS.ProcessEnv = { ...process.env, KUBECONFIG: join(dir, 'kubeconfig') };
  delete env['NO_COLOR'];
  return { argv: [process.execPath, OPERATOR_BIN, '--settings', join(dir, 'settings.yaml'), '--listen', '127.0.0.1:0', '--identity', 'op-log', ...extra], env };
}

const UNTIL = /vigil-operator starting/;
const lines = (text: string): string[] => stripAnsi(text).split(/\r?\n/).filter((l) => l.trim() !== '');

for (const [name, extra, terminal] of [['--log-format pretty through a pipe', ['--log-format', 'pretty'], false], ['stdout a terminal (script), no flag', [], true]] as const) {
  test(`${name}: one readable line per event`, async (t) => {
    const { argv, env } = await operatorRun(t, [...extra]);
    const output = await runUntil(t, argv, { until: UNTIL, terminal, env });
    const all = lines(output);
    for (const line of all) assert.match(line, /^\[\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{3}\] (INFO|WARN|ERROR|DEBUG): \S/, line);
    assert.ok(all.some((l) => /\] INFO: vigil-operator starting \{.*"namespace":"vigil"/.test(l)), output);
    assert.equal(stripAnsi(output) !== output, terminal, 'colours on a terminal only');
  });
}

test('stdout a pipe, or --log-format json on a terminal: JSON lines', async (t) => {
  for (const [extra, terminal] of [[[], false], [['--log-format', 'json'], true]] as const) {
    const { argv, env } = await operatorRun(t, [...extra]);
    const output = await runUntil(t, argv, { until: UNTIL, terminal, env });
    const records = lines(output).map((l) => JSON.parse(l) as { level: number; msg: string; identity: string });
    assert.ok(records.some((r) => r.msg === 'vigil-operator starting' && r.identity === 'op-log' && r.level === 30), output);
  }
});

test('--version prints the package version; --log-format xml is refused (exit 2)', async (t) => {
  const version = await runCommand(process.execPath, [OPERATOR_BIN, '--version']);
  assert.equal(version.code, 0);
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  assert.equal(version.stdout, `${pkg.version}\n`);
  const { argv, env } = await operatorRun(t, ['--log-format', 'xml']);
  const refused = await runCommand(argv[0]!, argv.slice(1), { env });
  assert.equal(refused.code, 2);
  assert.match(refused.stderr, /--log-format: "xml" is not one of json, pretty/);
});
