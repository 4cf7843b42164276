// Whether an object from the API server already is what the operator wants, the way apimachinery's
// equality.Semantic.DeepDerivative decides it: only what the desired object sets is compared, in any key order, and a
// field the desired object leaves empty ("", [], {}, undefined) matches whatever the server holds (its defaults, such
// as a Service port's protocol or a subject's omitted apiGroup). Comparing JSON text instead would see a change in
// every object the server re-orders or defaults, and PUT it again on every resync.

function isEmpty(value: unknown): boolean {
  if (value === undefined || value === null || value === '') return true;
  if (Array.isArray(value)) return value.length === 0;
  if (typeof value === 'object') return Object.keys(value).length === 0;
  return false;
}

/** True when every field that `desired` sets holds the same value in `actual`. */
export function isDerivedFrom(desired: unknown, actual: unknown): boolean {
  if (isEmpty(desired)) return true;
  if (Array.isArray(desired)) {
    return Array.isArray(actual) && actual.length === desired.length && desired.every((item, i) => isDerivedFrom(item, actual[i]));
  }
  if (typeof desired === 'object' && desired !== null) {
    if (typeof actual !== 'object' || actual === null || Array.isArray(actual)) return false;
    const have = actual as Record<string, unknown>;
    return Object.entries(desired as Record<string, unknown>).every(([key, value]) => isDerivedFrom(value, have[key]));
  }
  return desired === actual;
}
