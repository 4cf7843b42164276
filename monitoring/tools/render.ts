// Renders the alerts and the dashboard to the exact text committed in the chart and in packaging/ (the generator
// writes it, the drift test compares it).
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import { buildDashboard } from './dashboard.js';
import { ruleGroups } from './rules.js';

export const GENERATE_COMMAND = 'npm run generate -w monitoring';

/** The root of this checkout (the compiled file lives in monitoring/dist/src/). */
export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

export const OUTPUTS = {
  chartRules: 'helm/vigil/files/prometheus-rules.yaml',
  chartDashboard: 'helm/vigil/files/grafana-dashboard.json',
  packageRules: 'packaging/monitoring/vigil-rules.yaml',
  packageDashboard: 'packaging/monitoring/vigil-dashboard.json',
} as const;

const header = (what: string): string => `# ${what}\n# Generated from monitoring/tools by \`${GENERATE_COMMAND}\`; do not edit.\n`;

/** YAML 1.1 quoting, as Prometheus and kubectl read it. */
const yaml = (doc: unknown): string => stringify(doc, { lineWidth: 0, version: '1.1' });

export function renderOutputs(): Array<{ path: string; text: string }> {
  const dashboard = `${JSON.stringify(buildDashboard(), null, 2)}\n`;
  return [
    { path: OUTPUTS.chartRules, text: header("Vigil's alerts for the chart's PrometheusRule (templates/prometheusrule.yaml).") + yaml(ruleGroups('kubernetes')) },
    { path: OUTPUTS.chartDashboard, text: dashboard },
    { path: OUTPUTS.packageRules, text: header("Vigil's alerts: a Prometheus rules file (rule_files), for recorders scraped as job \"vigil\".") + yaml(ruleGroups('packages')) },
    { path: OUTPUTS.packageDashboard, text: dashboard },
  ];
}
