// What an alert is (its rule, where it is installed, its promtool cases) and `defineAlert`, which declares one: the
// series are named once with their failing and healthy values, the runbook anchor comes from the alert's name.

/** Where an alert is installed: both, only with the chart (it reads the operator's series), or only with the packages. */
export type AlertTarget = 'all' | 'kubernetes' | 'packages';

/** A series fed to promtool: its selector and values in promtool's expanding notation ("0+60x10", "1x15"). */
export interface InputSeries {
  series: string;
  values: string;
}

export interface AlertCase {
  /** The series over the test window (1-minute steps). */
  input: InputSeries[];
  /** The minute at which the alert is evaluated. */
  at: string;
  /** The labels of each firing alert (beside alertname and severity); empty: it must not fire. */
  fires: Array<Record<string, string>>;
}

export interface AlertDefinition {
  alert: string;
  target: AlertTarget;
  expr: string;
  for: string;
  severity: 'critical' | 'warning';
  summary: string;
  /** May use {{ $labels.NAME }}; the tests fill in the labels of the expected alert. */
  description: string;
  /** The heading anchor in docs/runbooks.md. */
  runbook: string;
  firing: AlertCase;
  healthy: AlertCase;
}

/** A series of both cases: its selector, its values in the firing case and in the healthy one (none: not fed there). */
export interface CaseSeries {
  series: string;
  firing: string;
  healthy?: string;
}

/** An alert as declared: the rule, then its cases (both evaluated at `at`; the healthy one raises no alert). */
export interface AlertSpec extends Omit<AlertDefinition, 'runbook' | 'firing' | 'healthy'> {
  at: string;
  series: CaseSeries[];
  /** The labels of each alert the firing case raises (beside alertname and severity). */
  fires: Array<Record<string, string>>;
}

/** The alert of a spec; its runbook is the heading named like the alert (GitHub's anchor: the name in lower case). */
export function defineAlert(spec: AlertSpec): AlertDefinition {
  const { at, series, fires, ...rule } = spec;
  return {
    ...rule,
    runbook: rule.alert.toLowerCase(),
    firing: { input: series.map((s) => ({ series: s.series, values: s.firing })), at, fires },
    healthy: { input: series.flatMap((s) => (s.healthy === undefined ? [] : [{ series: s.series, values: s.healthy }])), at, fires: [] },
  };
}
