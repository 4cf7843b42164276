// Small number helpers every benchmark uses: a positive integer from the environment, and nearest-rank percentiles.

/** The positive integer in environment variable `name`, else `dflt`. */
export function envInt(name, dflt) {
  const n = Number(process.env[name]);
  return Number.isInteger(n) && n > 0 ? n : dflt;
}

/** The nearest-rank p-th percentile of `values` (null when there are none). */
export function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? null;
}
