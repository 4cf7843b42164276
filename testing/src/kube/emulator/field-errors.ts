// Field errors as k8s.io/apimachinery's field package words them (ErrorBody), for 422 Invalid causes.
import type { StatusCause } from './status-errors.js';

/** A bad value printed as the Go code prints it: strings quoted, numbers and booleans bare, anything else as JSON. */
export function showValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value ?? null);
}

function withDetail(body: string, detail: string | undefined): string {
  return detail === undefined || detail === '' ? body : `${body}: ${detail}`;
}

export function invalidValue(field: string, value: unknown, detail?: string): StatusCause {
  return { reason: 'FieldValueInvalid', field, message: withDetail(`Invalid value: ${showValue(value)}`, detail) };
}

export function requiredValue(field: string, detail?: string): StatusCause {
  return { reason: 'FieldValueRequired', field, message: withDetail('Required value', detail) };
}

export function notSupported(field: string, value: unknown, supported: string[]): StatusCause {
  return { reason: 'FieldValueNotSupported', field, message: withDetail(`Unsupported value: ${showValue(value)}`, supported.length > 0 ? `supported values: ${supported.map((v) => JSON.stringify(v)).join(', ')}` : undefined) };
}

export function duplicateValue(field: string, value: unknown): StatusCause {
  return { reason: 'FieldValueDuplicate', field, message: `Duplicate value: ${showValue(value)}` };
}

export function forbiddenField(field: string, detail?: string): StatusCause {
  return { reason: 'FieldValueForbidden', field, message: withDetail('Forbidden', detail) };
}

export function notFoundValue(field: string, value: unknown): StatusCause {
  return { reason: 'FieldValueNotFound', field, message: `Not found: ${showValue(value)}` };
}

export function tooLong(field: string, maxLength: number): StatusCause {
  return { reason: 'FieldValueTooLong', field, message: `Too long: may not be more than ${maxLength} ${maxLength === 1 ? 'byte' : 'bytes'}` };
}

export function tooMany(field: string, actual: number, max: number): StatusCause {
  return { reason: 'FieldValueTooMany', field, message: `Too many: ${actual}: must have at most ${max} ${max === 1 ? 'item' : 'items'}` };
}

/** One cause per message of a format check (`IsDNS1123Label` and friends answer several). */
export function invalidEach(field: string, value: unknown, messages: string[]): StatusCause[] {
  return messages.map((m) => invalidValue(field, value, m));
}
