// The committed dashboard JSON has the shape Grafana imports: the SDK's dashboard keys only, unique panel ids, a
// 24-column grid without overlaps, known units, every query on the $datasource variable — and PromQL promtool parses.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { stringify } from 'yaml';
import type { Dashboard } from '@grafana/grafana-foundation-sdk/dashboard';
import * as units from '@grafana/grafana-foundation-sdk/units';
import { runCommand } from '@vigil/testing/command';
import { tempDir } from '@vigil/testing/temp-dir';
import { OUTPUTS, REPO_ROOT } from '../tools/render.js';

/** Every top-level key of the SDK's Dashboard type (the compiler checks each name against it). */
const DASHBOARD_KEYS: Array<keyof Dashboard> = ['id', 'uid', 'title', 'description', 'revision', 'gnetId', 'tags', 'timezone', 'editable', 'graphTooltip', 'time', 'timepicker', 'fiscalYearStartMonth', 'liveNow', 'weekStart', 'refresh', 'schemaVersion', 'version', 'panels', 'templating', 'annotations', 'links', 'snapshot', 'preload'];

interface PanelJson {
  id: number;
  type: string;
  title: string;
  gridPos: { x: number; y: number; w: number; h: number };
  datasource?: { type: string; uid: string };
  fieldConfig?: { defaults?: { unit?: string } };
  targets?: Array<{ refId: string; expr: string; datasource?: { uid: string } }>;
}

function committed(): { raw: Record<string, unknown>; panels: PanelJson[] } {
  const chart = readFileSync(join(REPO_ROOT, OUTPUTS.chartDashboard), 'utf8');
  assert.equal(readFileSync(join(REPO_ROOT, OUTPUTS.packageDashboard), 'utf8'), chart, 'the packages ship the chart\'s dashboard');
  const raw = JSON.parse(chart) as Record<string, unknown>;
  return { raw, panels: raw.panels as PanelJson[] };
}

test('the dashboard has only the SDK\'s keys, a schema version, a uid, and the variables its queries use', () => {
  const { raw, panels } = committed();
  for (const key of Object.keys(raw)) assert.ok((DASHBOARD_KEYS as string[]).includes(key), `dashboard key ${key}`);
  assert.equal(typeof raw.schemaVersion, 'number');
  assert.equal(raw.uid, 'vigil-overview');
  const variables = ((raw.templating as { list: Array<{ name: string; type: string }> }).list).map((v) => v.name);
  assert.deepEqual(variables, ['datasource', 'instance']);
  const used = new Set(panels.flatMap((p) => (p.targets ?? []).flatMap((q) => [...q.expr.matchAll(/\$(\w+)/g)].map((m) => m[1]!))));
  for (const name of used) assert.ok(variables.includes(name) || name.startsWith('__'), `$${name} is defined`);
});

test('panels: unique ids, a 24-column grid without overlaps, known units, queries with refIds on $datasource', () => {
  const { panels } = committed();
  const known = new Set<unknown>(Object.values(units).filter((v) => typeof v === 'string'));
  assert.equal(new Set(panels.map((p) => p.id)).size, panels.length, 'unique ids');
  const cells = new Set<string>();
  for (const p of panels) {
    const { x, y, w, h } = p.gridPos;
    assert.ok(x >= 0 && w > 0 && x + w <= 24 && h > 0, `${p.title}: inside the grid`);
    for (let i = x; i < x + w; i++) for (let j = y; j < y + h; j++) {
      assert.ok(!cells.has(`${i},${j}`), `${p.title} overlaps another panel at ${i},${j}`);
      cells.add(`${i},${j}`);
    }
    if (p.type === 'row') continue;
    assert.ok(['timeseries', 'stat'].includes(p.type), `${p.title}: type ${p.type}`);
    assert.ok(known.has(p.fieldConfig?.defaults?.unit ?? ''), `${p.title}: unit ${p.fieldConfig?.defaults?.unit} is one Grafana knows`);
    assert.equal(p.datasource?.uid, '${datasource}', `${p.title}: on the $datasource variable`);
    assert.ok((p.targets ?? []).length > 0, `${p.title}: has queries`);
    const refIds = (p.targets ?? []).map((q) => q.refId);
    assert.equal(new Set(refIds).size, refIds.length, `${p.title}: unique refIds`);
  }
  const titles = panels.filter((p) => p.type === 'row').map((p) => p.title);
  assert.deepEqual(titles, ['Cameras', 'Ingest', 'Disk and retention', 'Cluster: failovers and moves', 'API', 'Live and playback', 'Jobs']);
});

test('every query of the dashboard is PromQL that promtool parses (as recording rules, variables filled in)', async (t) => {
  const { panels } = committed();
  const exprs = panels.flatMap((p) => (p.targets ?? []).map((q) => q.expr));
  const fill = (expr: string): string => expr.replaceAll('$__rate_interval', '5m').replaceAll('$instance', '.*');
  const rules = { groups: [{ name: 'dashboard', rules: exprs.map((expr, i) => ({ record: `vigil:dashboard_query_${i}`, expr: fill(expr) })) }] };
  const dir = await tempDir(t, 'vigil-dashboard-');
  writeFileSync(join(dir, 'queries.yaml'), stringify(rules));
  const result = await runCommand('promtool', ['check', 'rules', join(dir, 'queries.yaml')]);
  assert.equal(result.code, 0, result.stdout + result.stderr);
  assert.match(result.stdout, new RegExp(`SUCCESS: ${exprs.length} rules found`));
});
