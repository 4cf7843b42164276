// Turns a request body into the object to store: kind and namespace checks, unknown fields by fieldValidation, CR defaults and validation, name rules, generation.
import { decodingError } from './builtin-decoding.js';
import { applyDefaults, normalizeTimestamps, unknownFields, validateValue } from './schema-checks.js';
import { badRequest, invalid, type StatusCause } from './status-errors.js';
import { groupVersion, isRecord, type KubeObject, type ResourceType } from './types.js';

export type FieldValidation = 'Strict' | 'Warn' | 'Ignore';

export function parseFieldValidation(value: string | null | undefined): FieldValidation {
  if (value === null || value === undefined || value === '') return 'Warn';
  if (value === 'Strict' || value === 'Warn' || value === 'Ignore') return value;
  throw badRequest(`fieldValidation ${value} is invalid, valid values are: Ignore, Warn, or Strict`);
}

/** Checks apiVersion/kind of a body against the endpoint's type and fills them in when absent. */
export function checkBodyType(body: unknown, type: ResourceType): KubeObject {
  if (!isRecord(body)) throw badRequest(`the body of the request was not a ${type.kind} object`);
  const apiVersion = groupVersion(type.group, type.version);
  if (body.apiVersion !== undefined && body.apiVersion !== '' && body.apiVersion !== apiVersion) {
    const otherGroup = String(body.apiVersion).includes('/') ? String(body.apiVersion).split('/')[0] : '';
    if (otherGroup !== type.group) throw badRequest(`the API version in the data (${String(body.apiVersion)}) does not match the expected API version (${apiVersion})`);
  }
  if (body.kind !== undefined && body.kind !== '' && body.kind !== type.kind) {
    throw badRequest(`${String(body.kind)} in version "${type.version}" cannot be handled as a ${type.kind}: the object provided is unrecognized`);
  }
  const metadata = isRecord(body.metadata) ? { ...body.metadata } : {};
  return { ...body, apiVersion, kind: type.kind, metadata } as KubeObject;
}

/**
 * Drops fields the schema does not declare (after reporting them: Strict throws 400, Warn adds warnings),
 * then for custom resources applies defaults and validates values.
 */
export function normalizeBySchema(object: KubeObject, type: ResourceType, validation: FieldValidation, warnings: string[]): void {
  if (!type.custom) {
    const decoding = decodingError(object, type.schema);
    if (decoding !== undefined) throw badRequest(`${type.kind} in version "${type.version}" cannot be handled as a ${type.kind}: ${decoding}`);
  }
  const unknown = unknownFields(object, type.schema, '', true);
  if (unknown.length > 0) {
    if (validation === 'Strict') {
      throw badRequest(`${type.kind} in version "${type.version}" cannot be handled as a ${type.kind}: strict decoding error: ${unknown.map((f) => `unknown field "${f}"`).join(', ')}`);
    }
    if (validation === 'Warn') for (const f of unknown) warnings.push(`unknown field "${f}"`);
  }
  if (!type.custom) {
    const bad = normalizeTimestamps(object, type.schema);
    if (bad.length > 0) throw badRequest(`${type.kind} in version "${type.version}" cannot be handled as a ${type.kind}: ${bad.join(', ')}`);
  }
  if (type.custom) {
    applyDefaults(object, type.schema);
    const causes: StatusCause[] = [];
    for (const [key, value] of Object.entries(object)) {
      if (key === 'apiVersion' || key === 'kind' || key === 'metadata') continue;
      causes.push(...validateValue(value, type.schema?.properties?.[key], key));
    }
    for (const r of type.schema?.required ?? []) {
      if (r !== 'apiVersion' && r !== 'kind' && r !== 'metadata' && object[r] === undefined) causes.push({ reason: 'FieldValueRequired', field: r, message: 'Required value' });
    }
    if (causes.length > 0) throw invalid(type, object.metadata.name ?? '', causes);
  }
}

/** A create needs a name (or generateName, resolved before this); its format is checked with the rest of metadata. */
export function checkName(type: ResourceType, object: KubeObject): void {
  const name = object.metadata.name;
  if (name === undefined || name === '') {
    throw invalid(type, '', [{ reason: 'FieldValueRequired', field: 'metadata.name', message: 'Required value: name or generateName is required' }]);
  }
}

/** What changes metadata.generation: everything but metadata (and status, when status is a subresource). */
export function generationView(object: KubeObject, statusIsSubresource: boolean): string {
  const view: Record<string, unknown> = { ...object };
  delete view.metadata;
  if (statusIsSubresource) delete view.status;
  return canonicalJson(view);
}

/** An update that changes nothing is answered with the stored object and no new resourceVersion. */
export function sameContent(a: KubeObject, b: KubeObject): boolean {
  const strip = (o: KubeObject): string => {
    const metadata: Record<string, unknown> = { ...o.metadata };
    delete metadata.resourceVersion;
    delete metadata.managedFields;
    return canonicalJson({ ...o, metadata });
  };
  return strip(a) === strip(b);
}

/** JSON with object keys sorted, so equal content compares equal whatever order fields arrived in. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (!isRecord(v)) return v;
    const sorted: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) sorted[k] = v[k];
    return sorted;
  });
}
