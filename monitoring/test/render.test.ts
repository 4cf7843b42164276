// The committed rules files and dashboards (chart and packages) are exactly what monitoring/tools generates.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { parse } from 'yaml';
import { ALERTS } from '../tools/alerts.js';
import { GENERATE_COMMAND, OUTPUTS, renderOutputs, REPO_ROOT } from '../tools/render.js';
import type { RuleGroup } from '../tools/rules.js';

test('the committed alerts and dashboards equal a fresh generation', () => {
  for (const { path, text } of renderOutputs()) {
    const onDisk = readFileSync(join(REPO_ROOT, path), 'utf8');
    assert.ok(onDisk === text, `${path} differs from monitoring/tools: run \`${GENERATE_COMMAND}\` and commit the result`);
  }
});

test('every alert is in the chart or the packages (or both), with summary, description and a runbook link into docs/runbooks.md', () => {
  const runbooks = readFileSync(join(REPO_ROOT, 'docs/runbooks.md'), 'utf8');
  // GitHub's anchors: the heading in lower case, spaces to dashes, other punctuation dropped.
  const anchors = new Set([...runbooks.matchAll(/^#+ (.+)$/gm)].map((m) => m[1]!.toLowerCase().replace(/[^\w\- ]/g, '').replace(/ /g, '-')));
  const chart = (parse(readFileSync(join(REPO_ROOT, OUTPUTS.chartRules), 'utf8')) as { groups: RuleGroup[] }).groups.flatMap((g) => g.rules);
  const packages = (parse(readFileSync(join(REPO_ROOT, OUTPUTS.packageRules), 'utf8')) as { groups: RuleGroup[] }).groups.flatMap((g) => g.rules);
  assert.deepEqual(new Set([...chart, ...packages].map((r) => r.alert)), new Set(ALERTS.map((a) => a.alert)));
  for (const rule of [...chart, ...packages]) {
    assert.ok(rule.annotations.summary.length > 10 && rule.annotations.description.length > 30, `${rule.alert}: summary and description`);
    const anchor = rule.annotations.runbook_url.split('#')[1] ?? '';
    assert.ok(anchors.has(anchor), `${rule.alert}: docs/runbooks.md has a heading for #${anchor}`);
    assert.match(rule.annotations.runbook_url, /^https:\/\/github\.com\/vigil\/vigil\/blob\/main\/docs\/runbooks\.md#/);
  }
  // The list: camera, node, quorum, leader, disk, write/index errors, certificate, job queue.
  for (const name of ['VigilCameraNotRecording', 'VigilRecorderNodeOffline', 'VigilRecorderDown', 'VigilNoQuorum', 'VigilNoOperatorLeader', 'VigilRecordingsDiskUnderRetentionFloor', 'VigilSegmentWriteErrors', 'VigilRecordingsIndexErrors', 'VigilCertificateExpiresSoon', 'VigilJobQueueNotDraining']) {
    assert.ok(ALERTS.some((a) => a.alert === name), name);
  }
});
