// Test support: the metric names a PromQL expression reads (selectors), without functions, keywords, labels or numbers.

/** Words PromQL gives a meaning of its own (operators and modifiers); functions are told apart by their "(". */
const KEYWORDS = new Set(['and', 'or', 'unless', 'bool', 'offset', 'inf', 'nan']);

export function promqlMetricNames(expr: string): string[] {
  const stripped = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g, ' ')                      // strings (label values, regexes)
    .replace(/\{[^}]*\}/g, ' ')                                                // label matchers
    .replace(/\[[^\]]*\]/g, ' ')                                               // range and subquery windows
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ') // label lists of grouping and matching
    .replace(/(?<![\w:])(?:\d+(?:ms|[smhdwy]))+(?![\w:])/g, ' ')                  // durations (offset 5m, 1h30m)
    .replace(/(?<![\w:])\d[\d.]*(?:[eE][+-]?\d+)?/g, ' ');                     // numbers (10e9, 0.95, 86400)
  const names = new Set<string>();
  for (const m of stripped.matchAll(/[a-zA-Z_:][a-zA-Z0-9_:]*(?!\s*\()(?![a-zA-Z0-9_:])/g)) {
    if (!KEYWORDS.has(m[0].toLowerCase())) names.add(m[0]);
  }
  return [...names].sort();
}
