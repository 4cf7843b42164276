// Small number helpers every benchmark uses: an integer from the environment, medians, nearest-rank percentiles and
// figures rounded for the JSON lines.

/**
 * The integer of at least `min` (1 unless said) in environment variable `name`, else `dflt`. Options where 0 means
 * something (skip a part, switch a thing off) pass min 0: with the default, 0 would quietly be `dflt`.
 */
export function envInt(name, dflt, min = 1) {
  const raw = process.env[name];
  const n = raw === undefined || raw.trim() === '' ? NaN : Number(raw);
  return Number.isInteger(n) && n >= min ? n : dflt;
}

/** The median of the finite numbers in `values` (null when there are none). */
export function median(values) {
  const v = values.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (v.length === 0) return null;
  const mid = Math.floor(v.length / 2);
  return v.length % 2 === 1 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
}

/** The nearest-rank p-th percentile of `values` (null when there are none). */
export function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? null;
}

/** `x` rounded to `places` decimals; null and undefined (a figure that has no value) stay null. */
function rounded(x, places) {
  if (x === null || x === undefined) return null;
  const f = 10 ** places;
  return Math.round(x * f) / f;
}

/** One, two, three decimals: what the figures are reported with. */
export const r1 = (x) => rounded(x, 1);
export const r2 = (x) => rounded(x, 2);
export const r3 = (x) => rounded(x, 3);
