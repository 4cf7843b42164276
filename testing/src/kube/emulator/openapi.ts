// OpenAPI v3 documents: the /openapi/v3 index and one document per group-version, with PATCH operations carrying x-kubernetes-group-version-kind and fieldValidation (kubectl and helm check for both).
import { createHash } from 'node:crypto';
import type { ResourceRegistry } from './resource-registry.js';
import { schemaBodyToOpenApi, type Schema } from './schema.js';
import { groupVersion, type ResourceType } from './types.js';

interface CachedDocument {
  signature: string;
  json: string;
  hash: string;
}

const QUERY = (name: string, description: string, type = 'string'): Record<string, unknown> => ({ name, in: 'query', description, schema: { type, uniqueItems: true } });
const WRITE_PARAMS = [
  QUERY('dryRun', 'When present, indicates that modifications should not be persisted.'),
  QUERY('fieldManager', 'fieldManager is a name associated with the actor or entity that is making these changes.'),
  QUERY('fieldValidation', 'fieldValidation instructs the server on how to handle objects in the request (POST/PUT/PATCH) containing unknown or duplicate fields. Valid values are: Ignore, Warn (default), Strict.'),
];

/** "V1DeploymentStrategy" → "io.k8s.api.v1.DeploymentStrategy": kubectl explain shows the last segment, as for a real server. */
function modelComponentName(modelName: string): string {
  const m = /^([A-Z][a-z]*V\d+(?:(?:alpha|beta)\d+)?|V\d+(?:(?:alpha|beta)\d+)?)([A-Z].*)$/.exec(modelName);
  return m === null ? modelName : `io.k8s.api.${(m[1] as string).toLowerCase()}.${m[2] as string}`;
}

function componentName(t: ResourceType): string {
  const group = t.group === '' ? 'core' : t.group;
  return t.custom ? `${group.split('.').reverse().join('.')}.${t.version}.${t.kind}` : `io.k8s.api.${group}.${t.version}.${t.kind}`;
}

function pathsOf(t: ResourceType, ref: string): Record<string, unknown> {
  const gvk = { group: t.group, version: t.version, kind: t.kind };
  const prefix = t.group === '' ? `/api/${t.version}` : `/apis/${t.group}/${t.version}`;
  const base = t.namespaced ? `${prefix}/namespaces/{namespace}/${t.plural}` : `${prefix}/${t.plural}`;
  const pathParams = (withName: boolean): Record<string, unknown>[] => [
    ...(withName ? [{ name: 'name', in: 'path', required: true, description: `name of the ${t.kind}`, schema: { type: 'string', uniqueItems: true } }] : []),
    ...(t.namespaced ? [{ name: 'namespace', in: 'path', required: true, description: 'object name and auth scope, such as for teams and projects', schema: { type: 'string', uniqueItems: true } }] : []),
  ];
  const body = { content: { '*/*': { schema: { $ref: ref } } }, required: true };
  const answer = { '200': { description: 'OK', content: { 'application/json': { schema: { $ref: ref } } } }, '401': { description: 'Unauthorized' } };
  const op = (action: string, id: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
    tags: [groupVersion(t.group, t.version)],
    operationId: `${id}${t.kind}`,
    responses: answer,
    'x-kubernetes-action': action,
    'x-kubernetes-group-version-kind': gvk,
    ...extra,
  });
  const patchBody = {
    content: {
      'application/json-patch+json': { schema: { type: 'object' } },
      'application/merge-patch+json': { schema: { type: 'object' } },
      'application/apply-patch+yaml': { schema: { type: 'object' } },
    },
    required: true,
  };
  const paths: Record<string, unknown> = {};
  if (t.verbs.includes('list') || t.verbs.includes('create')) {
    paths[base] = {
      ...(t.verbs.includes('list') ? { get: op('list', 'list') } : {}),
      ...(t.verbs.includes('create') ? { post: op('post', 'create', { requestBody: body, parameters: WRITE_PARAMS }) } : {}),
      parameters: pathParams(false),
    };
  }
  if (t.verbs.includes('get')) {
    paths[`${base}/{name}`] = {
      get: op('get', 'read'),
      put: op('put', 'replace', { requestBody: body, parameters: WRITE_PARAMS }),
      patch: op('patch', 'patch', { requestBody: patchBody, parameters: [...WRITE_PARAMS, QUERY('force', 'Force is going to "force" Apply requests.', 'boolean')] }),
      delete: op('delete', 'delete'),
      parameters: pathParams(true),
    };
  }
  if (t.subresources.includes('status')) {
    paths[`${base}/{name}/status`] = {
      get: op('get', 'readStatus'),
      put: op('put', 'replaceStatus', { requestBody: body, parameters: WRITE_PARAMS }),
      patch: op('patch', 'patchStatus', { requestBody: patchBody, parameters: WRITE_PARAMS }),
      parameters: pathParams(true),
    };
  }
  return paths;
}

/** Builds (and caches until the served types change) the OpenAPI v3 documents. */
export class OpenApiDocuments {
  private readonly cache = new Map<string, CachedDocument>();

  constructor(private readonly registry: ResourceRegistry) {}

  /** The /openapi/v3 index: each served group-version with the hashed URL of its document. */
  index(): Record<string, unknown> {
    const paths: Record<string, unknown> = {};
    for (const { group, versions } of this.registry.groupVersions()) {
      for (const v of versions) {
        const key = group === '' ? `api/${v}` : `apis/${group}/${v}`;
        const doc = this.document(group, v);
        if (doc !== undefined) paths[key] = { serverRelativeURL: `/openapi/v3/${key}?hash=${doc.hash}` };
      }
    }
    return { paths };
  }

  /** The JSON document of one group-version and its hash, or undefined when it is not served. */
  document(group: string, version: string): CachedDocument | undefined {
    const types = this.registry.resourcesOf(group, version);
    if (types.length === 0) return undefined;
    const key = groupVersion(group, version);
    const signature = types.map((t) => `${t.plural}:${t.custom ? this.registry.revision : 0}`).join(',');
    const cached = this.cache.get(key);
    if (cached !== undefined && cached.signature === signature) return cached;
    const json = JSON.stringify(this.build(types));
    const hash = createHash('sha512').update(json).digest('hex').toUpperCase();
    const doc = { signature, json, hash };
    this.cache.set(key, doc);
    return doc;
  }

  private build(types: ResourceType[]): Record<string, unknown> {
    const schemas: Record<string, unknown> = {};
    const models = new Map<string, Schema>();
    const ref = (modelName: string): string => `#/components/schemas/${modelComponentName(modelName)}`;
    const collect = (s: Schema | undefined): void => {
      if (s === undefined) return;
      if (s.modelName !== undefined) {
        if (models.has(s.modelName)) return;
        models.set(s.modelName, s);
      }
      for (const p of Object.values(s.properties ?? {})) collect(p);
      if (s.items !== undefined) collect(s.items);
      if (s.additionalProperties !== undefined && s.additionalProperties !== true) collect(s.additionalProperties);
    };
    const paths: Record<string, unknown> = {};
    for (const t of types) {
      const name = componentName(t);
      const gvk = [{ group: t.group, version: t.version, kind: t.kind }];
      if (t.schema === undefined) schemas[name] = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, 'x-kubernetes-group-version-kind': gvk };
      else {
        for (const p of Object.values(t.schema.properties ?? {})) collect(p);
        schemas[name] = { ...schemaBodyToOpenApi(t.schema, (m) => (m === t.schema?.modelName ? undefined : ref(m))), 'x-kubernetes-group-version-kind': gvk };
      }
      Object.assign(paths, pathsOf(t, `#/components/schemas/${name}`));
    }
    for (const [modelName, s] of models) {
      const name = modelComponentName(modelName);
      if (schemas[name] === undefined) schemas[name] = schemaBodyToOpenApi(s, ref);
    }
    return {
      openapi: '3.0.0',
      info: { title: 'Kubernetes', version: 'v1.35.2' },
      paths,
      components: { schemas },
    };
  }
}
