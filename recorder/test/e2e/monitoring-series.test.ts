// Every metric the shipped alerts and dashboard read (helm/vigil/files, packaging/monitoring) is exported by a running
// recorder (cluster mode with TLS and a database, a camera recording) or by the leading operator, on the real control plane.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { parse } from 'yaml';
import { parsePrometheusText } from '@vigil/testing/prometheus-text';
import { promqlMetricNames } from '@vigil/testing/promql-names';
import { waitUntil } from '@vigil/testing/processes';
import { cameraManifests, startLoopbackCluster } from './cluster-fixture.js';

const REPO = fileURLToPath(new URL('../../../../', import.meta.url));
const RULE_FILES = ['helm/vigil/files/prometheus-rules.yaml', 'packaging/monitoring/vigil-rules.yaml'];
const DASHBOARDS = ['helm/vigil/files/grafana-dashboard.json', 'packaging/monitoring/vigil-dashboard.json'];
/** Series Prometheus makes itself for every scrape target: the packages' "recorder down" alert reads `up`. */
const SCRAPE_SERIES = new Set(['up']);

/** Each expression of the shipped files, with where it comes from. */
function shippedExpressions(): Array<{ where: string; expr: string }> {
  const out: Array<{ where: string; expr: string }> = [];
  for (const file of RULE_FILES) {
    const doc = parse(readFileSync(join(REPO, file), 'utf8')) as { groups: Array<{ rules: Array<{ alert: string; expr: string }> }> };
    for (const rule of doc.groups.flatMap((g) => g.rules)) out.push({ where: `${file} ${rule.alert}`, expr: rule.expr });
  }
  for (const file of DASHBOARDS) {
    const doc = JSON.parse(readFileSync(join(REPO, file), 'utf8')) as { panels: Array<{ title: string; targets?: Array<{ expr: string }> }>; templating: { list: Array<{ name: string; query?: unknown }> } };
    for (const panel of doc.panels) for (const q of panel.targets ?? []) out.push({ where: `${file} "${panel.title}"`, expr: q.expr });
    for (const v of doc.templating.list) {
      const m = typeof v.query === 'string' ? /^label_values\((\w+),/.exec(v.query) : null;
      if (m !== null) out.push({ where: `${file} variable ${v.name}`, expr: m[1]! });
    }
  }
  return out;
}

/** The names an exposition offers to PromQL: every sample's, and each declared histogram's _bucket/_sum/_count. */
function exportedNames(text: string): Set<string> {
  const expo = parsePrometheusText(text);
  const names = new Set(expo.samples.map((s) => s.name));
  for (const [name, type] of expo.types) {
    if (type === 'histogram') for (const suffix of ['_bucket', '_sum', '_count']) names.add(name + suffix);
    else if (type === 'summary') for (const suffix of ['', '_sum', '_count']) names.add(name + suffix);
    else names.add(name);
  }
  return names;
}

test('every metric of the shipped alerts and dashboard exists in what a running recorder and operator export', { timeout: 300_000 }, async (t) => {
  const expressions = shippedExpressions();
  assert.ok(expressions.length > 40, `the alerts and the dashboard panels (${expressions.length} expressions)`);

  const fx = await startLoopbackCluster(t, { nodes: ['node-a'], cameraCount: 1, tls: { certificateLifetimeSeconds: 86_400 } });
  const file = join(fx.cluster.dir, 'camera.yaml');
  await writeFile(file, cameraManifests(fx, ['cam-1']));
  await fx.cluster.kubectl('apply', '-n', fx.cluster.namespace, '-f', file);
  await waitUntil(async () => (await fx.cluster.camera('cam-1')).status?.phase === 'Recording', 90_000, 'cam-1 Recording');
  const pod = fx.pods.get('node-a');
  assert.ok(pod !== undefined);
  const metricsUrl = String((await pod.proc.waitForLog((l) => typeof l['metrics_url'] === 'string'))['metrics_url']);
  // Histograms without an observation yet (API requests, jobs) are declared by their TYPE line: exportedNames counts them.

  let leader: { port: number } | undefined;
  await waitUntil(async () => {
    for (const op of fx.operators.values()) if (await op.isLeader().catch(() => false)) leader = op;
    return leader !== undefined;
  }, 30_000, 'an operator leads');
  let exported = new Set<string>();
  // The camera's series appear with its first fragment, the certificate's once the issued one is served.
  await waitUntil(async () => {
    const recorder = await (await fetch(metricsUrl)).text();
    const operator = await (await fetch(`http://127.0.0.1:${leader!.port}/metrics`)).text();
    exported = new Set([...exportedNames(recorder), ...exportedNames(operator)]);
    return exported.has('vigil_camera_seconds_since_last_fragment') && exported.has('vigil_tls_certificate_expiry_timestamp_seconds');
  }, 60_000, 'the camera and certificate series');

  const missing = expressions.flatMap(({ where, expr }) => promqlMetricNames(expr).filter((n) => !exported.has(n) && !SCRAPE_SERIES.has(n)).map((n) => `${n} (${where})`));
  assert.deepEqual(missing, [], 'metrics the alerts or the dashboard read that neither the recorder nor the operator exports');
  // The check can fail: a name nobody exports is reported.
  assert.deepEqual(promqlMetricNames('vigil_camera_not_a_series_total > 0').filter((n) => !exported.has(n)), ['vigil_camera_not_a_series_total']);
  // Only the packages' "recorder down" alert reads a series Prometheus makes itself.
  const scrapeOnly = expressions.filter(({ expr }) => promqlMetricNames(expr).some((n) => SCRAPE_SERIES.has(n))).map((e) => e.where);
  assert.deepEqual(scrapeOnly, ['packaging/monitoring/vigil-rules.yaml VigilRecorderDown']);
});
