// Test support: the keys a JSON log line repeats at its top level (JSON.parse would silently keep only the last one).

/** Top-level keys that occur more than once in the JSON object `line` ([] for a line that is not an object). */
export function repeatedTopLevelKeys(line: string): string[] {
  const seen = new Set<string>();
  const repeated = new Set<string>();
  let depth = 0;
  let i = 0;
  let expectKey = false;
  while (i < line.length) {
    const ch = line[i] as string;
    if (ch === '"') {
      let j = i + 1;
      while (j < line.length && line[j] !== '"') j += line[j] === '\\' ? 2 : 1;
      const text = line.slice(i, j + 1);
      if (depth === 1 && expectKey) {
        const key = JSON.parse(text) as string;
        if (seen.has(key)) repeated.add(key);
        seen.add(key);
        expectKey = false;
      }
      i = j + 1;
      continue;
    }
    if (ch === '{' || ch === '[') {
      depth++;
      if (depth === 1 && ch === '{') expectKey = true;
    } else if (ch === '}' || ch === ']') depth--;
    else if (ch === ',' && depth === 1) expectKey = true;
    i++;
  }
  return [...repeated];
}
