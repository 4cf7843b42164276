// Validation pieces several kinds share (labels, label selectors, ports, int-or-percent, reading untyped JSON), worded as apimachinery and pkg/apis/core/validation word them.
import { duplicateValue, forbiddenField, invalidEach, invalidValue, notSupported, requiredValue } from './field-errors.js';
import type { StatusCause } from './status-errors.js';
import { isRecord } from './types.js';
import { isLabelValue, isQualifiedName, isValidPercent, isValidPortName, isValidPortNum } from './validation-formats.js';

export type Json = Record<string, unknown>;

export function rec(v: unknown): Json {
  return isRecord(v) ? v : {};
}

export function arr(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

export function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

export function present(v: unknown): boolean {
  return v !== undefined && v !== null;
}

/** `path.child`, skipping an empty parent. */
export function child(path: string, name: string): string {
  return path === '' ? name : `${path}.${name}`;
}

export function index(path: string, i: number): string {
  return `${path}[${i}]`;
}

export function key(path: string, k: string): string {
  return `${path}[${k}]`;
}

export const IS_NEGATIVE = 'must be greater than or equal to 0';

export function nonNegative(value: unknown, path: string): StatusCause[] {
  return typeof value === 'number' && value < 0 ? [invalidValue(path, value, IS_NEGATIVE)] : [];
}

/** metav1 ValidateLabels: every key a qualified name, every value a label value; errors name the map, not the key. */
export function validateLabels(labels: unknown, path: string): StatusCause[] {
  const causes: StatusCause[] = [];
  for (const [k, v] of Object.entries(rec(labels))) {
    causes.push(...invalidEach(path, k, isQualifiedName(k)));
    causes.push(...invalidEach(path, v, isLabelValue(str(v))));
  }
  return causes;
}

/** metav1 ValidateLabelSelector: matchLabels as labels, matchExpressions with a valid key, operator and values. */
export function validateLabelSelector(selector: unknown, path: string): StatusCause[] {
  if (!isRecord(selector)) return [];
  const causes = validateLabels(selector.matchLabels, child(path, 'matchLabels'));
  arr(selector.matchExpressions).forEach((e, i) => {
    const expr = rec(e);
    const at = index(child(path, 'matchExpressions'), i);
    const values = arr(expr.values);
    switch (expr.operator) {
      case 'In':
      case 'NotIn':
        if (values.length === 0) causes.push(requiredValue(child(at, 'values'), "must be specified when `operator` is 'In' or 'NotIn'"));
        break;
      case 'Exists':
      case 'DoesNotExist':
        if (values.length > 0) causes.push(forbiddenField(child(at, 'values'), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
        break;
      default:
        causes.push(invalidValue(child(at, 'operator'), expr.operator ?? '', 'not a valid selector operator'));
    }
    causes.push(...invalidEach(child(at, 'key'), str(expr.key), isQualifiedName(str(expr.key))));
  });
  return causes;
}

/** A port given as a number (1-65535) or a name (IANA_SVC_NAME). */
export function validatePortNumOrName(port: unknown, path: string): StatusCause[] {
  if (typeof port === 'number') return invalidEach(path, port, isValidPortNum(port));
  if (typeof port === 'string') return invalidEach(path, port, isValidPortName(port));
  return [invalidValue(path, port ?? '', 'must contain an int or string')];
}

/** An int-or-string that is a count or a percentage: non-negative, and (when `max100`) not above 100%. */
export function validateIntOrPercent(value: unknown, path: string, max100: boolean): StatusCause[] {
  if (!present(value)) return [];
  if (typeof value === 'number') return nonNegative(value, path);
  const s = str(value);
  const format = isValidPercent(s);
  if (format.length > 0) return invalidEach(path, s, format);
  if (max100 && Number(s.slice(0, -1)) > 100) return [invalidValue(path, s, 'must not be greater than 100%')];
  return [];
}

/** A value out of a fixed set, with the set in the order the Go code lists it. */
export function oneOf(value: unknown, path: string, supported: string[], required = true): StatusCause[] {
  if (!present(value) || value === '') return required ? [requiredValue(path)] : [];
  return supported.includes(str(value)) ? [] : [notSupported(path, value, supported)];
}

/** Names that must be unique in a list (containers, volumes, ports): a Duplicate for each repeat. */
export class UniqueNames {
  private readonly seen = new Set<string>();

  check(name: string, path: string): StatusCause[] {
    if (this.seen.has(name)) return [duplicateValue(path, name)];
    this.seen.add(name);
    return [];
  }
}
