// promtool unit tests written from the alerts' own cases: each alert fires on its failing series and not on its healthy ones.
import type { AlertCase, AlertDefinition } from './alert-definition.js';
import { alertsFor } from './alerts.js';
import { ruleOf } from './rules.js';

/** Fills {{ $labels.NAME }} as Prometheus does for the alert's labels (the annotations promtool expects). */
export function expandLabels(template: string, labels: Record<string, string>): string {
  return template.replace(/\{\{\s*\$labels\.(\w+)\s*\}\}/g, (_all, name: string) => labels[name] ?? '');
}

function testOf(alert: AlertDefinition, which: AlertCase): Record<string, unknown> {
  const rule = ruleOf(alert);
  return {
    interval: '1m',
    input_series: which.input,
    alert_rule_test: [{
      eval_time: which.at,
      alertname: alert.alert,
      exp_alerts: which.fires.map((labels) => ({
        exp_labels: { ...labels, severity: alert.severity },
        exp_annotations: Object.fromEntries(Object.entries(rule.annotations).map(([k, v]) => [k, expandLabels(v, { ...labels, severity: alert.severity })])),
      })),
    }],
  };
}

/** The promtool test file for a rules file of this target (rule_files is relative to the test file). */
export function promtoolTests(target: 'kubernetes' | 'packages', rulesFile: string): Record<string, unknown> {
  return {
    rule_files: [rulesFile],
    evaluation_interval: '1m',
    tests: alertsFor(target).flatMap((alert) => [testOf(alert, alert.firing), testOf(alert, alert.healthy)]),
  };
}
