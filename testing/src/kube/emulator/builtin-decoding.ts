// What decoding a built-in kind's JSON into its Go type refuses before any validation: wrong JSON types and quantities outside the Quantity grammar (400 BadRequest).
import { isQuantityError, parseQuantity } from './quantity.js';
import { childSchema, type Schema } from './schema.js';
import { isRecord } from './types.js';

const INT32 = 2 ** 31;

/** The Go struct name of a client-node model: V1ContainerPort → ContainerPort, CoreV1Event → Event. */
function goStructName(modelName: string | undefined): string {
  return (modelName ?? 'Object').replace(/^(?:[A-Z][a-z]+)*V\d+(?:(?:alpha|beta)\d+)?/, '');
}

/** Go's name of the type a schema node decodes into (typed strings such as v1.Protocol are reported as string). */
function goType(schema: Schema): string {
  if (schema.quantity) return 'resource.Quantity';
  if (schema.intOrString) return 'intstr.IntOrString';
  if (schema.modelName !== undefined) return `v1.${goStructName(schema.modelName)}`;
  switch (schema.type) {
    case 'string': return 'string';
    case 'integer': return schema.format === 'int64' ? 'int64' : 'int32';
    case 'number': return 'float64';
    case 'boolean': return 'bool';
    case 'array': return `[]${schema.items === undefined ? 'interface {}' : goType(schema.items)}`;
    case 'object': return schema.additionalProperties !== undefined && schema.additionalProperties !== true ? `map[string]${goType(schema.additionalProperties)}` : 'map[string]interface {}';
    default: return 'interface {}';
  }
}

function jsonKind(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'object') return 'object';
  return typeof v;
}

interface Where {
  struct: string;
  path: string;
}

/** The first decoding error in `value` (document order), as encoding/json and Quantity.UnmarshalJSON word it. */
function check(value: unknown, schema: Schema | undefined, where: Where): string | undefined {
  if (schema === undefined || value === null || value === undefined || schema.preserveUnknownFields) return undefined;
  const typeError = (what: string): string => `json: cannot unmarshal ${what} into Go struct field ${where.struct}.${where.path} of type ${goType(schema)}`;
  if (schema.quantity) {
    if (typeof value !== 'string' && typeof value !== 'number') return parseQuantityError(JSON.stringify(value));
    const parsed = parseQuantity(value);
    return isQuantityError(parsed) ? parsed.error : undefined;
  }
  if (schema.intOrString) {
    if (typeof value === 'string' || (typeof value === 'number' && Number.isInteger(value) && Math.abs(value) < INT32)) return undefined;
    return typeError(typeof value === 'number' ? `number ${value}` : jsonKind(value));
  }
  switch (schema.type) {
    case 'string':
      return typeof value === 'string' ? undefined : typeError(jsonKind(value));
    case 'boolean':
      return typeof value === 'boolean' ? undefined : typeError(jsonKind(value));
    case 'number':
      return typeof value === 'number' ? undefined : typeError(jsonKind(value));
    case 'integer': {
      if (typeof value !== 'number') return typeError(jsonKind(value));
      const fits = Number.isInteger(value) && (schema.format === 'int64' ? Number.isSafeInteger(value) : value >= -INT32 && value < INT32);
      return fits ? undefined : typeError(`number ${value}`);
    }
    case 'array':
      if (!Array.isArray(value)) return typeError(jsonKind(value));
      for (const item of value) {
        const err = check(item, schema.items, where);
        if (err !== undefined) return err;
      }
      return undefined;
    case 'object': {
      if (!isRecord(value)) return typeError(jsonKind(value));
      const struct = schema.modelName !== undefined ? goStructName(schema.modelName) : where.struct;
      for (const [key, v] of Object.entries(value)) {
        const isField = schema.properties?.[key] !== undefined;
        const child = childSchema(schema, key);
        // A struct's field extends the path; a map's value keeps the map field's place.
        const next: Where = isField ? { struct, path: where.path === '' ? key : `${where.path}.${key}` } : where;
        const err = check(v, child, next);
        if (err !== undefined) return err;
      }
      return undefined;
    }
    default:
      return undefined;
  }
}

function parseQuantityError(raw: string): string {
  const parsed = parseQuantity(raw);
  return isQuantityError(parsed) ? parsed.error : 'quantities must match the regular expression';
}

/** The decoding error of a built-in object (the 400's text after "cannot be handled as a Kind: "), if any. */
export function decodingError(object: Record<string, unknown>, schema: Schema | undefined): string | undefined {
  if (schema === undefined) return undefined;
  const root = goStructName(schema.modelName);
  for (const [key, v] of Object.entries(object)) {
    if (key === 'apiVersion' || key === 'kind') continue;
    const err = check(v, schema.properties?.[key], { struct: root, path: key });
    if (err !== undefined) return err;
  }
  return undefined;
}
