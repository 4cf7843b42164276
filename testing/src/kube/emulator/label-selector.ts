// Label selectors as the API server parses them: =, ==, !=, in, notin, exists and !exists, comma-joined.
import { badRequest } from './status-errors.js';

type Requirement =
  | { op: 'eq' | 'neq'; key: string; value: string }
  | { op: 'in' | 'notin'; key: string; values: Set<string> }
  | { op: 'exists' | 'notexists'; key: string };

export type LabelMatcher = (labels: Record<string, string> | undefined) => boolean;

const KEY = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;

/** Parses `selector` (the labelSelector query parameter); throws 400 on a malformed one. */
export function parseLabelSelector(selector: string | null | undefined): LabelMatcher {
  if (selector === null || selector === undefined || selector.trim() === '') return () => true;
  const requirements = splitTopLevel(selector).map(parseRequirement);
  return (labels) => requirements.every((r) => matches(r, labels ?? {}));
}

/** A metav1.LabelSelector (matchLabels + matchExpressions) as a matcher. */
export function labelSelectorObjectMatcher(sel: { matchLabels?: Record<string, string>; matchExpressions?: Array<{ key: string; operator: string; values?: string[] }> } | undefined): LabelMatcher {
  if (sel === undefined) return () => false;
  const reqs: Requirement[] = [];
  for (const [key, value] of Object.entries(sel.matchLabels ?? {})) reqs.push({ op: 'eq', key, value });
  for (const e of sel.matchExpressions ?? []) {
    const op = e.operator.toLowerCase();
    if (op === 'in' || op === 'notin') reqs.push({ op, key: e.key, values: new Set(e.values ?? []) });
    else if (op === 'exists') reqs.push({ op: 'exists', key: e.key });
    else if (op === 'doesnotexist') reqs.push({ op: 'notexists', key: e.key });
  }
  return (labels) => reqs.every((r) => matches(r, labels ?? {}));
}

function matches(r: Requirement, labels: Record<string, string>): boolean {
  const has = Object.prototype.hasOwnProperty.call(labels, r.key);
  const value = labels[r.key];
  switch (r.op) {
    case 'eq': return has && value === r.value;
    case 'neq': return !has || value !== r.value;
    case 'in': return has && r.values.has(value as string);
    case 'notin': return !has || !r.values.has(value as string);
    case 'exists': return has;
    case 'notexists': return !has;
  }
}

/** Splits on commas that are not inside an `in (...)` set. */
function splitTopLevel(selector: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let current = '';
  for (const ch of selector) {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (ch === ',' && depth === 0) {
      parts.push(current);
      current = '';
    } else current += ch;
  }
  parts.push(current);
  return parts.map((p) => p.trim()).filter((p) => p !== '');
}

function parseRequirement(text: string): Requirement {
  let m = /^!\s*(\S+)$/.exec(text);
  if (m !== null) return { op: 'notexists', key: checkKey(m[1] as string, text) };
  m = /^(\S+?)\s+(in|notin)\s+\((.*)\)$/.exec(text);
  if (m !== null) {
    const values = (m[3] as string).split(',').map((v) => v.trim()).filter((v) => v !== '');
    return { op: m[2] as 'in' | 'notin', key: checkKey(m[1] as string, text), values: new Set(values) };
  }
  m = /^([^=!\s]+)\s*(==|=|!=)\s*(\S*)$/.exec(text);
  if (m !== null) return { op: m[2] === '!=' ? 'neq' : 'eq', key: checkKey(m[1] as string, text), value: m[3] as string };
  m = /^(\S+)$/.exec(text);
  if (m !== null) return { op: 'exists', key: checkKey(m[1] as string, text) };
  throw badRequest(`unable to parse requirement: found '${text}', expected: in, notin, =, ==, !=, gt, lt`);
}

function checkKey(key: string, text: string): string {
  if (!KEY.test(key)) throw badRequest(`unable to parse requirement: <nil>: Invalid value: "${key}": name part must consist of alphanumeric characters, '-', '_' or '.' (in "${text}")`);
  return key;
}
