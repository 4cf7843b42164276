// The structural schema the emulator validates, prunes and defaults against, read from a CRD's openAPIV3Schema.
import { isRecord } from './types.js';

export type SchemaType = 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';

/** A Kubernetes structural schema, reduced to what the emulator acts on. */
export interface Schema {
  type?: SchemaType;
  description?: string;
  format?: string;
  properties?: Record<string, Schema>;
  /** A map's value schema (true = any value). */
  additionalProperties?: Schema | true;
  items?: Schema;
  required?: string[];
  enum?: unknown[];
  default?: unknown;
  nullable?: boolean;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: boolean;
  exclusiveMaximum?: boolean;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  minItems?: number;
  maxItems?: number;
  minProperties?: number;
  maxProperties?: number;
  intOrString?: boolean;
  preserveUnknownFields?: boolean;
  embeddedResource?: boolean;
  listType?: 'atomic' | 'set' | 'map';
  listMapKeys?: string[];
  mapType?: 'atomic' | 'granular';
  /** Strategic merge patch metadata (built-in kinds). */
  patchMergeKey?: string;
  patchStrategy?: string;
  /** The model name this node came from (built-in kinds), used as its OpenAPI component name. */
  modelName?: string;
  /** A resource.Quantity (built-in kinds): a string or a number in the Quantity grammar. */
  quantity?: boolean;
}

const TYPES = new Set<SchemaType>(['object', 'array', 'string', 'integer', 'number', 'boolean']);

/** Reads a CRD version's `schema.openAPIV3Schema` (JSONSchemaProps) into a Schema. */
export function schemaFromJsonSchemaProps(props: unknown): Schema {
  if (!isRecord(props)) return { preserveUnknownFields: true };
  const s: Schema = {};
  if (typeof props.type === 'string' && TYPES.has(props.type as SchemaType)) s.type = props.type as SchemaType;
  if (typeof props.description === 'string') s.description = props.description;
  if (typeof props.format === 'string') s.format = props.format;
  if (isRecord(props.properties)) {
    s.properties = {};
    for (const [k, v] of Object.entries(props.properties)) s.properties[k] = schemaFromJsonSchemaProps(v);
  }
  if (props.additionalProperties === true) s.additionalProperties = true;
  else if (isRecord(props.additionalProperties)) s.additionalProperties = schemaFromJsonSchemaProps(props.additionalProperties);
  if (isRecord(props.items)) s.items = schemaFromJsonSchemaProps(props.items);
  if (Array.isArray(props.required)) s.required = props.required.filter((r): r is string => typeof r === 'string');
  if (Array.isArray(props.enum)) s.enum = props.enum;
  if ('default' in props) s.default = props.default;
  for (const key of ['minimum', 'maximum', 'minLength', 'maxLength', 'minItems', 'maxItems', 'minProperties', 'maxProperties'] as const) {
    if (typeof props[key] === 'number') s[key] = props[key] as number;
  }
  if (props.exclusiveMinimum === true) s.exclusiveMinimum = true;
  if (props.exclusiveMaximum === true) s.exclusiveMaximum = true;
  if (props.nullable === true) s.nullable = true;
  if (typeof props.pattern === 'string') s.pattern = props.pattern;
  if (props['x-kubernetes-int-or-string'] === true) s.intOrString = true;
  if (props['x-kubernetes-preserve-unknown-fields'] === true) s.preserveUnknownFields = true;
  if (props['x-kubernetes-embedded-resource'] === true) s.embeddedResource = true;
  const listType = props['x-kubernetes-list-type'];
  if (listType === 'atomic' || listType === 'set' || listType === 'map') s.listType = listType;
  const keys = props['x-kubernetes-list-map-keys'];
  if (Array.isArray(keys)) s.listMapKeys = keys.filter((k): k is string => typeof k === 'string');
  const mapType = props['x-kubernetes-map-type'];
  if (mapType === 'atomic' || mapType === 'granular') s.mapType = mapType;
  return s;
}

/** The OpenAPI v3 JSON form of a Schema (for /openapi/v3 documents), with `$ref`s left as inline schemas. */
export function schemaToOpenApi(s: Schema, ref: (modelName: string) => string | undefined): Record<string, unknown> {
  if (s.modelName !== undefined) {
    const r = ref(s.modelName);
    if (r !== undefined) return { allOf: [{ $ref: r }], ...(s.default !== undefined ? { default: s.default } : {}) };
  }
  return schemaBodyToOpenApi(s, ref);
}

export function schemaBodyToOpenApi(s: Schema, ref: (modelName: string) => string | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (s.type !== undefined) out.type = s.type;
  if (s.description !== undefined) out.description = s.description;
  if (s.format !== undefined) out.format = s.format;
  if (s.properties !== undefined) {
    const props: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(s.properties)) props[k] = schemaToOpenApi(v, ref);
    out.properties = props;
  }
  if (s.additionalProperties === true) out.additionalProperties = true;
  else if (s.additionalProperties !== undefined) out.additionalProperties = schemaToOpenApi(s.additionalProperties, ref);
  if (s.items !== undefined) out.items = schemaToOpenApi(s.items, ref);
  if (s.required !== undefined && s.required.length > 0) out.required = s.required;
  if (s.enum !== undefined) out.enum = s.enum;
  if (s.default !== undefined) out.default = s.default;
  for (const key of ['minimum', 'maximum', 'minLength', 'maxLength', 'minItems', 'maxItems', 'minProperties', 'maxProperties', 'pattern', 'nullable', 'exclusiveMinimum', 'exclusiveMaximum'] as const) {
    if (s[key] !== undefined) out[key] = s[key];
  }
  if (s.intOrString) out['x-kubernetes-int-or-string'] = true;
  if (s.preserveUnknownFields) out['x-kubernetes-preserve-unknown-fields'] = true;
  if (s.embeddedResource) out['x-kubernetes-embedded-resource'] = true;
  if (s.listType !== undefined) out['x-kubernetes-list-type'] = s.listType;
  if (s.listMapKeys !== undefined) out['x-kubernetes-list-map-keys'] = s.listMapKeys;
  if (s.mapType !== undefined) out['x-kubernetes-map-type'] = s.mapType;
  if (s.patchMergeKey !== undefined) out['x-kubernetes-patch-merge-key'] = s.patchMergeKey;
  if (s.patchStrategy !== undefined) out['x-kubernetes-patch-strategy'] = s.patchStrategy;
  return out;
}

/** The schema of a child field, or undefined when the schema says nothing about it. */
export function childSchema(s: Schema | undefined, key: string): Schema | undefined {
  if (s === undefined) return undefined;
  const p = s.properties?.[key];
  if (p !== undefined) return p;
  if (s.additionalProperties !== undefined && s.additionalProperties !== true) return s.additionalProperties;
  return undefined;
}
