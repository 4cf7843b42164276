// The JSONPath subset printer columns use: .a.b, ['a'], [0], [*] and [?(@.type=="Ready")].
import { isRecord } from './types.js';

type Step = { field: string } | { index: number } | { all: true } | { filter: { path: string[]; op: '==' | '!='; value: unknown } };

function parse(expression: string): Step[] {
  let expr = expression.trim();
  if (expr.startsWith('{') && expr.endsWith('}')) expr = expr.slice(1, -1);
  if (expr.startsWith('$')) expr = expr.slice(1);
  const steps: Step[] = [];
  let i = 0;
  while (i < expr.length) {
    const ch = expr[i];
    if (ch === '.') {
      let j = i + 1;
      while (j < expr.length && expr[j] !== '.' && expr[j] !== '[') j++;
      if (j > i + 1) steps.push({ field: expr.slice(i + 1, j) });
      i = j;
    } else if (ch === '[') {
      const close = findClose(expr, i);
      const inner = expr.slice(i + 1, close).trim();
      if (inner === '*') steps.push({ all: true });
      else if (/^-?\d+$/.test(inner)) steps.push({ index: Number(inner) });
      else if (/^['"].*['"]$/.test(inner)) steps.push({ field: inner.slice(1, -1) });
      else {
        const m = /^\?\(@((?:\.[^.=!]+)+)\s*(==|!=)\s*(.+)\)$/.exec(inner);
        if (m !== null) {
          const raw = (m[3] as string).trim();
          const value = /^['"].*['"]$/.test(raw) ? raw.slice(1, -1) : raw === 'true' ? true : raw === 'false' ? false : Number(raw);
          steps.push({ filter: { path: (m[1] as string).slice(1).split('.'), op: m[2] as '==' | '!=', value } });
        }
      }
      i = close + 1;
    } else {
      let j = i;
      while (j < expr.length && expr[j] !== '.' && expr[j] !== '[') j++;
      steps.push({ field: expr.slice(i, j) });
      i = j;
    }
  }
  return steps;
}

function findClose(expr: string, open: number): number {
  let depth = 0;
  for (let i = open; i < expr.length; i++) {
    if (expr[i] === '[') depth++;
    if (expr[i] === ']' && --depth === 0) return i;
  }
  return expr.length;
}

/** Every value the path selects in `object` (an empty list when nothing matches). */
export function evaluateJsonPath(object: unknown, expression: string): unknown[] {
  let current: unknown[] = [object];
  for (const step of parse(expression)) {
    const next: unknown[] = [];
    for (const v of current) {
      if ('field' in step) {
        if (isRecord(v) && v[step.field] !== undefined) next.push(v[step.field]);
      } else if ('index' in step) {
        if (Array.isArray(v)) {
          const item = v[step.index < 0 ? v.length + step.index : step.index];
          if (item !== undefined) next.push(item);
        }
      } else if ('all' in step) {
        if (Array.isArray(v)) next.push(...v);
        else if (isRecord(v)) next.push(...Object.values(v));
      } else if (Array.isArray(v)) {
        for (const item of v) {
          let probe: unknown = item;
          for (const p of step.filter.path) probe = isRecord(probe) ? probe[p] : undefined;
          if ((probe === step.filter.value) === (step.filter.op === '==')) next.push(item);
        }
      }
    }
    current = next;
  }
  return current;
}
