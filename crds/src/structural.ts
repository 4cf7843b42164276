// Rewrites zod's JSON Schema (OpenAPI 3.0 target) into a Kubernetes structural schema (kube-rs kube-core/src/schema.rs does the same job).
//
// A structural schema (apiextensions.k8s.io/v1) needs: a `type` on every node, no `additionalProperties` beside
// `properties`, `nullable` rather than a union with null, no `$schema`/`$ref`/`allOf`-style composition of types,
// OpenAPI 3.0 boolean `exclusiveMinimum`. Everything else (patterns, ranges, enums, defaults, descriptions) is kept.

export type JsonSchema = { [key: string]: unknown };

/** zod writes these bounds for every `.int()`; Kubernetes integers are int64 already, so they only add noise. */
const SAFE_INT = Number.MAX_SAFE_INTEGER;

/** Keys a structural schema may carry; anything else zod emits is dropped. */
const KEPT = new Set([
  'type', 'format', 'description', 'default', 'enum', 'pattern', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum',
  'minLength', 'maxLength', 'minItems', 'maxItems', 'minProperties', 'maxProperties', 'nullable', 'required', 'properties',
  'items', 'additionalProperties', 'x-kubernetes-list-type', 'x-kubernetes-list-map-keys', 'x-kubernetes-map-type',
  'x-kubernetes-preserve-unknown-fields', 'x-kubernetes-int-or-string', 'x-kubernetes-validations',
]);

export class StructuralSchemaError extends Error {
  constructor(path: string, message: string) {
    super(`${path || '<root>'}: ${message}`);
    this.name = 'StructuralSchemaError';
  }
}

function isObject(value: unknown): value is JsonSchema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `anyOf: [X, {type: null}]` (or `{nullable: true}` alone beside X) → X with `nullable: true`. */
function collapseNullUnion(schema: JsonSchema, path: string): JsonSchema {
  const anyOf = schema.anyOf ?? schema.oneOf;
  if (!Array.isArray(anyOf)) return schema;
  const isNull = (s: unknown) => isObject(s) && (s.type === 'null' || (s.nullable === true && Object.keys(s).length === 1) || (Array.isArray(s.enum) && s.enum.length === 1 && s.enum[0] === null));
  const others = anyOf.filter((s) => !isNull(s));
  if (others.length !== 1 || !isObject(others[0])) throw new StructuralSchemaError(path, 'unions other than "X or null" have no structural form');
  const { anyOf: _a, oneOf: _o, ...rest } = schema;
  const merged: JsonSchema = { ...others[0], ...rest };
  if (others.length !== anyOf.length) merged.nullable = true;
  return merged;
}

/** Rewrites one node (and its children) of zod's output. `path` names the node in error messages. */
export function toStructural(input: JsonSchema, path = ''): JsonSchema {
  let schema = collapseNullUnion(input, path);
  if (schema.const !== undefined) {
    const { const: value, ...rest } = schema;
    schema = { ...rest, enum: [value] };
  }
  if (Array.isArray(schema.type)) throw new StructuralSchemaError(path, 'a list of types has no structural form');
  if (schema.type === undefined && schema['x-kubernetes-preserve-unknown-fields'] !== true && schema['x-kubernetes-int-or-string'] !== true) {
    throw new StructuralSchemaError(path, 'every node needs a type');
  }
  const out: JsonSchema = {};
  // `type` and `description` first: the YAML reads better, and the order is stable for the drift check.
  for (const key of ['type', 'description', ...Object.keys(schema)]) {
    if (!KEPT.has(key) || schema[key] === undefined || key in out) continue;
    out[key] = schema[key];
  }
  if (out.type === 'integer' || out.type === 'number') {
    if (out.maximum === SAFE_INT) delete out.maximum;
    if (out.minimum === -SAFE_INT) delete out.minimum;
    // JSON Schema 2020-12 spells exclusive bounds as numbers; OpenAPI 3.0 as booleans beside minimum/maximum.
    if (typeof out.exclusiveMinimum === 'number') {
      out.minimum = out.exclusiveMinimum;
      out.exclusiveMinimum = true;
    }
    if (typeof out.exclusiveMaximum === 'number') {
      out.maximum = out.exclusiveMaximum;
      out.exclusiveMaximum = true;
    }
  }
  if (out.type === 'string' && out.format === 'date-time') {
    // zod adds a long regex for ISO dates; the format alone is what the API server checks.
    delete out.pattern;
  }
  if (isObject(out.properties)) {
    const props: JsonSchema = {};
    for (const [name, child] of Object.entries(out.properties)) {
      if (!isObject(child)) throw new StructuralSchemaError(`${path}.${name}`, 'not a schema');
      props[name] = toStructural(child, `${path}.${name}`);
    }
    out.properties = props;
    // Unknown fields are pruned by the API server: `additionalProperties: false` beside `properties` is forbidden.
    delete out.additionalProperties;
    if (Array.isArray(out.required) && out.required.length === 0) delete out.required;
  } else if (out.type === 'object' && isObject(out.additionalProperties)) {
    out.additionalProperties = toStructural(out.additionalProperties, `${path}.*`);
  } else if (out.type === 'object' && out.additionalProperties === false) {
    delete out.additionalProperties;
  }
  if (isObject(out.items)) out.items = toStructural(out.items, `${path}[]`);
  else if (out.type === 'array') throw new StructuralSchemaError(path, 'an array needs one items schema');
  return out;
}
