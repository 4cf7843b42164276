// Debian's promtool checks the committed rules files and runs each alert's unit tests: it fires on its failing
// series and stays quiet on its healthy ones. Mutants of the rules prove the tests can fail for every alert.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { stringify } from 'yaml';
import { runCommand } from '@vigil/testing/command';
import { tempDir } from '@vigil/testing/temp-dir';
import { alertsFor } from '../tools/alerts.js';
import { promtoolTests } from '../tools/promtool-tests.js';
import { OUTPUTS, REPO_ROOT } from '../tools/render.js';

const TARGETS = [
  { target: 'kubernetes', rules: OUTPUTS.chartRules },
  { target: 'packages', rules: OUTPUTS.packageRules },
] as const;

/** A rules file and its unit tests in a fresh directory; `rewrite` changes the rules text first (for mutants). */
async function promtoolRun(t: TestContext, target: 'kubernetes' | 'packages', rulesPath: string, rewrite: (text: string) => string = (x) => x): Promise<{ code: number; out: string }> {
  const dir = await tempDir(t, 'vigil-promtool-');
  writeFileSync(join(dir, 'rules.yaml'), rewrite(readFileSync(join(REPO_ROOT, rulesPath), 'utf8')));
  writeFileSync(join(dir, 'tests.yaml'), stringify(promtoolTests(target, 'rules.yaml')));
  const result = await runCommand('promtool', ['test', 'rules', join(dir, 'tests.yaml')]);
  return { code: result.code, out: result.stdout + result.stderr };
}

const everyExpr = (replacement: string) => (text: string): string => text.replace(/^(\s+expr: ).*$/gm, `$1${replacement}`);

for (const { target, rules } of TARGETS) {
  test(`promtool check rules: ${rules}`, async () => {
    const result = await runCommand('promtool', ['check', 'rules', join(REPO_ROOT, rules)]);
    assert.equal(result.code, 0, `promtool (Debian package prometheus; scripts/setup.sh test installs it) refused ${rules}:\n${result.stdout}${result.stderr}`);
    assert.match(result.stdout, new RegExp(`SUCCESS: ${alertsFor(target).length} rules found`));
  });

  test(`promtool test rules: every ${target} alert fires on its failing series and not on its healthy ones`, async (t) => {
    const { code, out } = await promtoolRun(t, target, rules);
    assert.equal(code, 0, out);
    assert.match(out, /SUCCESS/);
  });

  test(`the ${target} unit tests fail for every alert when it never fires, or always does`, async (t) => {
    const never = await promtoolRun(t, target, rules, everyExpr('vector(1) == 0'));
    const always = await promtoolRun(t, target, rules, everyExpr('vector(1)'));
    assert.notEqual(never.code, 0);
    assert.notEqual(always.code, 0);
    for (const { alert } of alertsFor(target)) {
      assert.match(never.out, new RegExp(`alertname: ${alert}, time`), `a never-firing ${alert} is caught`);
      assert.match(always.out, new RegExp(`alertname: ${alert}, time`), `an always-firing ${alert} is caught`);
    }
  });
}
