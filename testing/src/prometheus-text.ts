// Test support: parses the Prometheus text exposition format (version 0.0.4) into samples and metric types.

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Exposition {
  types: Map<string, string>;
  samples: Sample[];
  /** The value of the one sample with that name and (at least) those labels; undefined when none. */
  value(name: string, labels?: Record<string, string>): number | undefined;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\d+)?$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"\s*,?/gy;

function parseValue(text: string): number {
  if (text === '+Inf') return Infinity;
  if (text === '-Inf') return -Infinity;
  // Prometheus reads NaN case-insensitively (Go's ParseFloat); prom-client writes "Nan".
  if (text.toLowerCase() === 'nan') return NaN;
  const n = Number(text);
  if (Number.isNaN(n)) throw new Error(`not a sample value: ${text}`);
  return n;
}

export function parsePrometheusText(text: string): Exposition {
  const types = new Map<string, string>();
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    if (line.startsWith('#')) {
      const m = /^# TYPE (\S+) (counter|gauge|histogram|summary|untyped)$/.exec(line);
      if (m?.[1] !== undefined && m[2] !== undefined) types.set(m[1], m[2]);
      else if (!line.startsWith('# HELP ')) throw new Error(`bad comment line: ${line}`);
      continue;
    }
    const m = SAMPLE.exec(line);
    if (m?.[1] === undefined || m[3] === undefined) throw new Error(`bad sample line: ${line}`);
    const labels: Record<string, string> = {};
    const body = m[2] ?? '';
    LABEL.lastIndex = 0;
    let l: RegExpExecArray | null;
    while (LABEL.lastIndex < body.length && (l = LABEL.exec(body)) !== null) {
      labels[l[1] as string] = (l[2] as string).replace(/\\n/g, '\n').replace(/\\(.)/g, '$1');
    }
    if (LABEL.lastIndex !== body.length && body !== '') throw new Error(`bad labels: ${line}`);
    samples.push({ name: m[1], labels, value: parseValue(m[3]) });
  }
  return {
    types,
    samples,
    value: (name, want = {}) => samples.find((s) => s.name === name && Object.entries(want).every(([k, v]) => s.labels[k] === v))?.value,
  };
}
