// Label selectors as --node-selector takes them (`a=b,c!=d,e,!f,g in (x,y),h notin (z)`), evaluated in memory.

export type LabelMatcher = (labels: Record<string, string>) => boolean;

export class SelectorError extends Error {}

export function parseLabelSelector(selector: string): LabelMatcher {
  const text = selector.trim();
  if (text === '') return () => true;
  const parts: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of text) {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (ch === ',' && depth === 0) {
      parts.push(cur.trim());
      cur = '';
    } else cur += ch;
  }
  parts.push(cur.trim());
  const tests = parts.map((part): LabelMatcher => {
    let m: RegExpExecArray | null;
    if ((m = /^([\w./-]+)\s+(in|notin)\s+\(([^)]*)\)$/.exec(part))) {
      const [, key, op, list] = m as unknown as [string, string, string, string];
      const values = new Set(list.split(',').map((v) => v.trim()).filter((v) => v !== ''));
      return op === 'in' ? (l) => l[key] !== undefined && values.has(l[key]) : (l) => l[key] === undefined || !values.has(l[key]);
    }
    if ((m = /^([\w./-]+)\s*(==|=|!=)\s*([\w./-]*)$/.exec(part))) {
      const [, key, op, value] = m as unknown as [string, string, string, string];
      return op === '!=' ? (l) => l[key] !== value : (l) => l[key] === value;
    }
    if ((m = /^!([\w./-]+)$/.exec(part))) {
      const key = m[1]!;
      return (l) => l[key] === undefined;
    }
    if ((m = /^([\w./-]+)$/.exec(part))) {
      const key = m[1]!;
      return (l) => l[key] !== undefined;
    }
    throw new SelectorError(`"${part}" is not a label selector requirement`);
  });
  return (labels) => tests.every((t) => t(labels));
}
