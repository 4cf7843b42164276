// What a structural schema does to a write: unknown-field detection (strict validation), pruning, defaulting and value validation.
import { childSchema, type Schema } from './schema.js';
import type { StatusCause } from './status-errors.js';
import { deepClone, isRecord } from './types.js';

function join(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}

function knows(schema: Schema, key: string): boolean {
  return schema.preserveUnknownFields === true || schema.additionalProperties !== undefined || schema.properties?.[key] !== undefined
    || (schema.embeddedResource === true && (key === 'apiVersion' || key === 'kind' || key === 'metadata'));
}

/**
 * Fields of `value` its schema does not declare, as "spec.foo" / "spec.containers[0].foo".
 * With `prune`, they are also removed from `value` (custom resources drop what their schema does not know).
 */
export function unknownFields(value: unknown, schema: Schema | undefined, path = '', prune = false): string[] {
  if (schema === undefined) return [];
  const out: string[] = [];
  if (isRecord(value)) {
    for (const key of Object.keys(value)) {
      if (!knows(schema, key)) {
        out.push(join(path, key));
        if (prune) delete value[key];
        continue;
      }
      const child = childSchema(schema, key);
      if (child !== undefined) out.push(...unknownFields(value[key], child, join(path, key), prune));
    }
  } else if (Array.isArray(value) && schema.items !== undefined) {
    value.forEach((item, i) => out.push(...unknownFields(item, schema.items, `${path}[${i}]`, prune)));
  }
  return out;
}

/** Fills in schema defaults where fields are absent (mutating `value`). */
export function applyDefaults(value: unknown, schema: Schema | undefined): void {
  if (schema === undefined) return;
  if (isRecord(value)) {
    for (const [key, prop] of Object.entries(schema.properties ?? {})) {
      if (value[key] === undefined && prop.default !== undefined) value[key] = deepClone(prop.default);
      if (value[key] !== undefined) applyDefaults(value[key], prop);
    }
    if (schema.additionalProperties !== undefined && schema.additionalProperties !== true) {
      for (const [key, v] of Object.entries(value)) if (schema.properties?.[key] === undefined) applyDefaults(v, schema.additionalProperties);
    }
  } else if (Array.isArray(value) && schema.items !== undefined) {
    for (const item of value) applyDefaults(item, schema.items);
  }
}

function show(v: unknown): string {
  return typeof v === 'string' ? `"${v}"` : JSON.stringify(v);
}

function typeOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

/** Validates a value against its schema; the causes read like the real server's field errors. */
export function validateValue(value: unknown, schema: Schema | undefined, path: string): StatusCause[] {
  if (schema === undefined || value === undefined) return [];
  const out: StatusCause[] = [];
  const invalid = (message: string, reason = 'FieldValueInvalid'): void => { out.push({ reason, field: path, message }); };
  if (value === null) {
    if (!schema.nullable && schema.type !== undefined) invalid(`Invalid value: "null": ${path} in body must be of type ${schema.type}: "null"`, 'FieldValueTypeInvalid');
    return out;
  }
  if (schema.intOrString) {
    if (typeof value !== 'string' && !Number.isInteger(value)) invalid(`Invalid value: ${show(value)}: ${path} in body must be of type integer,string: "${typeOf(value)}"`, 'FieldValueTypeInvalid');
  } else if (schema.type !== undefined) {
    const actual = typeOf(value);
    const ok = schema.type === actual || (schema.type === 'number' && actual === 'integer');
    if (!ok) {
      invalid(`Invalid value: "${actual}": ${path} in body must be of type ${schema.type}: "${actual}"`, 'FieldValueTypeInvalid');
      return out;
    }
  }
  if (schema.enum !== undefined && !schema.enum.some((e) => JSON.stringify(e) === JSON.stringify(value))) {
    invalid(`Unsupported value: ${show(value)}: supported values: ${schema.enum.map(show).join(', ')}`, 'FieldValueNotSupported');
  }
  if (typeof value === 'number') {
    if (schema.minimum !== undefined && (schema.exclusiveMinimum ? value <= schema.minimum : value < schema.minimum)) {
      invalid(`Invalid value: ${value}: ${path} in body should be greater than ${schema.exclusiveMinimum ? '' : 'or equal to '}${schema.minimum}`);
    }
    if (schema.maximum !== undefined && (schema.exclusiveMaximum ? value >= schema.maximum : value > schema.maximum)) {
      invalid(`Invalid value: ${value}: ${path} in body should be less than ${schema.exclusiveMaximum ? '' : 'or equal to '}${schema.maximum}`);
    }
  }
  if (typeof value === 'string') {
    if (schema.maxLength !== undefined && [...value].length > schema.maxLength) out.push({ reason: 'FieldValueTooLong', field: path, message: `Too long: may not be more than ${schema.maxLength} bytes` });
    if (schema.minLength !== undefined && [...value].length < schema.minLength) invalid(`Invalid value: ${show(value)}: ${path} in body should be at least ${schema.minLength} chars long`);
    if (schema.pattern !== undefined && !safeRegExp(schema.pattern).test(value)) invalid(`Invalid value: ${show(value)}: ${path} in body should match '${schema.pattern}'`);
  }
  if (Array.isArray(value)) {
    if (schema.maxItems !== undefined && value.length > schema.maxItems) out.push({ reason: 'FieldValueTooMany', field: path, message: `Too many: ${value.length}: must have at most ${schema.maxItems} items` });
    if (schema.minItems !== undefined && value.length < schema.minItems) invalid(`Invalid value: ${value.length}: ${path} in body should have at least ${schema.minItems} items`);
    value.forEach((item, i) => out.push(...validateValue(item, schema.items, `${path}[${i}]`)));
  }
  if (isRecord(value)) {
    for (const r of schema.required ?? []) if (value[r] === undefined) out.push({ reason: 'FieldValueRequired', field: join(path, r), message: 'Required value' });
    for (const [k, v] of Object.entries(value)) {
      const child = childSchema(schema, k);
      if (child !== undefined) out.push(...validateValue(v, child, join(path, k)));
    }
    if (schema.maxProperties !== undefined && Object.keys(value).length > schema.maxProperties) out.push({ reason: 'FieldValueTooMany', field: path, message: `Too many: ${Object.keys(value).length}: must have at most ${schema.maxProperties} items` });
  }
  return out;
}

function safeRegExp(pattern: string): RegExp {
  try {
    return new RegExp(pattern, 'u');
  } catch {
    return /.*/;
  }
}

const RFC3339 = /^(\d{4}-\d{2}-\d{2})[Tt](\d{2}:\d{2}:\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/** A timestamp as the Go types write it: metav1.Time in whole seconds, metav1.MicroTime with six fraction digits, both UTC. */
function canonicalTime(value: string, micro: boolean): string | undefined {
  const m = RFC3339.exec(value);
  if (m === null) return undefined;
  const whole = Date.parse(`${m[1] as string}T${m[2] as string}${(m[4] as string).toUpperCase()}`);
  if (Number.isNaN(whole)) return undefined;
  const seconds = new Date(whole).toISOString().slice(0, 19);
  if (!micro) return `${seconds}Z`;
  return `${seconds}.${((m[3] ?? '.').slice(1) + '000000').slice(0, 6)}Z`;
}

/**
 * Rewrites date-time fields of built-in kinds the way the real server stores them (Go clients cannot parse a
 * MicroTime without its six digits); answers the fields that are not timestamps at all.
 */
export function normalizeTimestamps(value: unknown, schema: Schema | undefined, path = ''): string[] {
  if (schema === undefined) return [];
  const bad: string[] = [];
  if (isRecord(value)) {
    for (const [key, v] of Object.entries(value)) {
      const child = childSchema(schema, key);
      if (child === undefined) continue;
      if ((child.format === 'date-time' || child.format === 'date-time-micro') && typeof v === 'string') {
        const fixed = canonicalTime(v, child.format === 'date-time-micro');
        if (fixed === undefined) bad.push(`${join(path, key)}: parsing time ${JSON.stringify(v)}`);
        else value[key] = fixed;
      } else bad.push(...normalizeTimestamps(v, child, join(path, key)));
    }
  } else if (Array.isArray(value) && schema.items !== undefined) {
    value.forEach((item, i) => bad.push(...normalizeTimestamps(item, schema.items, `${path}[${i}]`)));
  }
  return bad;
}
