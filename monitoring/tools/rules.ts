// The alerts as a Prometheus rules file (the `groups:` document both the PrometheusRule spec and a rules_files entry take).
import type { AlertDefinition } from './alert-definition.js';
import { alertsFor, RUNBOOK_BASE } from './alerts.js';

export interface RuleGroup {
  name: string;
  rules: Array<{
    alert: string;
    expr: string;
    for: string;
    labels: { severity: string };
    annotations: { summary: string; description: string; runbook_url: string };
  }>;
}

export function runbookUrl(alert: AlertDefinition): string {
  return `${RUNBOOK_BASE}#${alert.runbook}`;
}

export function ruleOf(alert: AlertDefinition): RuleGroup['rules'][number] {
  return {
    alert: alert.alert,
    expr: alert.expr,
    for: alert.for,
    labels: { severity: alert.severity },
    annotations: { summary: alert.summary, description: alert.description, runbook_url: runbookUrl(alert) },
  };
}

export function ruleGroups(target: 'kubernetes' | 'packages'): { groups: RuleGroup[] } {
  return { groups: [{ name: 'vigil', rules: alertsFor(target).map(ruleOf) }] };
}
