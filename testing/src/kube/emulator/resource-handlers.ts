// Serves one resource request (get, list, watch, create, update, patch, delete, deletecollection) on top of ObjectApi, in the representation the client asked for.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isVirtualResource } from './builtin-resources.js';
import { contentTypeOf, negotiate } from './content-negotiation.js';
import { parseFieldSelector } from './field-selector.js';
import { decodeObjectBody, decodeOptionalBody, decodePatchBody, readBody } from './http-body.js';
import { parseLabelSelector } from './label-selector.js';
import type { ObjectApi } from './object-api.js';
import { deleteObject } from './object-deletion.js';
import { applyJsonPatch, applyMergePatch } from './patch-json.js';
import type { ResourceRegistry } from './resource-registry.js';
import type { ResourceRequest } from './request-info.js';
import { review, tokenRequest, type ReviewContext } from './review-handlers.js';
import { methodNotAllowed, pathNotFound } from './status-errors.js';
import { toTable } from './table-printer.js';
import { handleView } from './view-handlers.js';
import { includeObject, listMeta, represent, withTableVersion } from './representation.js';
import { bearerToken, deleteOptions, writeOptions } from './request-options.js';
import { groupVersion, isRecord, type KubeObject, type ResourceType } from './types.js';
import { serveWatch, type WatchRegistry } from './watch-stream.js';

export interface ResourceHandlerDeps {
  registry: ResourceRegistry;
  api: ObjectApi;
  watches: WatchRegistry;
  review: Omit<ReviewContext, 'user'>;
}

export interface Reply {
  status: number;
  body: unknown;
  contentType?: string;
  warnings?: string[];
}

/** Resolves the resource type a request names, or 404 the way the real server answers unknown paths. */
export function resolveType(registry: ResourceRegistry, info: ResourceRequest): ResourceType {
  const type = registry.lookup(info.group, info.version, info.resource);
  if (type === undefined) throw pathNotFound();
  if (info.namespace !== undefined && !type.namespaced) throw pathNotFound();
  if (info.subresource !== undefined && !type.subresources.includes(info.subresource)) throw pathNotFound();
  if (!type.verbs.includes(info.verb) && !(info.subresource !== undefined && ['get', 'update', 'patch', 'create'].includes(info.verb))) throw methodNotAllowed();
  return type;
}







function scaleOf(o: KubeObject): Record<string, unknown> {
  const spec = isRecord(o.spec) ? o.spec : {};
  const status = isRecord(o.status) ? o.status : {};
  const selector = isRecord(spec.selector) && isRecord(spec.selector.matchLabels) ? Object.entries(spec.selector.matchLabels).map(([k, v]) => `${k}=${String(v)}`).join(',') : '';
  return {
    kind: 'Scale',
    apiVersion: 'autoscaling/v1',
    metadata: { name: o.metadata.name, namespace: o.metadata.namespace, uid: o.metadata.uid, resourceVersion: o.metadata.resourceVersion, creationTimestamp: o.metadata.creationTimestamp },
    spec: { replicas: spec.replicas ?? 0 },
    status: { replicas: status.replicas ?? 0, selector },
  };
}

export async function handleResource(deps: ResourceHandlerDeps, info: ResourceRequest, user: ReviewContext['user'], req: IncomingMessage, res: ServerResponse, query: URLSearchParams): Promise<Reply | undefined> {
  const type = resolveType(deps.registry, info);
  if (type.view !== undefined) return handleView(deps, type, info, req, res, query);
  const { api } = deps;
  const rep = negotiate(req.headers.accept);
  const ns = type.namespaced ? info.namespace : undefined;
  const warnings: string[] = [];
  const namedOnly = (): string => {
    if (info.name === undefined) throw methodNotAllowed();
    if (type.namespaced && ns === undefined && info.verb !== 'create') throw pathNotFound();
    return info.name;
  };

  switch (info.verb) {
    case 'get': {
      const o = api.get(type, ns, namedOnly());
      if (info.subresource === 'scale') return { status: 200, body: scaleOf(o) };
      return { status: 200, body: represent(rep, type, query, o), contentType: contentTypeOf(rep) };
    }
    case 'list': {
      const limit = Number(query.get('limit') ?? '0');
      const result = api.list(type, ns, { labelSelector: query.get('labelSelector'), fieldSelector: query.get('fieldSelector'), limit: Number.isFinite(limit) ? limit : 0, continueToken: query.get('continue') });
      const meta = listMeta(result.resourceVersion, result.continueToken, result.remainingItemCount);
      if (rep.form === 'Table') return { status: 200, body: withTableVersion(toTable(type, result.items, includeObject(query), meta), rep.version), contentType: contentTypeOf(rep) };
      if (rep.form === 'PartialObjectMetadata') {
        return { status: 200, contentType: contentTypeOf(rep), body: { kind: 'PartialObjectMetadataList', apiVersion: `meta.k8s.io/${rep.version}`, metadata: meta, items: result.items.map((o) => ({ kind: 'PartialObjectMetadata', apiVersion: `meta.k8s.io/${rep.version}`, metadata: o.metadata })) } };
      }
      return { status: 200, body: { kind: type.listKind, apiVersion: groupVersion(type.group, type.version), metadata: meta, items: result.items } };
    }
    case 'watch': {
      const timeout = Number(query.get('timeoutSeconds') ?? '');
      serveWatch(api.store, deps.watches, {
        token: bearerToken(req),
        type,
        namespace: ns,
        labels: parseLabelSelector(query.get('labelSelector')),
        fields: parseFieldSelector(query.get('fieldSelector') ?? (info.name !== undefined ? `metadata.name=${info.name}` : null), type),
        resourceVersion: query.get('resourceVersion') ?? '',
        sendInitialEvents: query.get('sendInitialEvents') === 'true',
        allowBookmarks: query.get('allowWatchBookmarks') === 'true',
        timeoutSeconds: Number.isFinite(timeout) && timeout > 0 ? timeout : 1800 + Math.floor(Math.random() * 1800),
        encode: (o) => represent(rep, type, query, o),
        plainObjects: rep.form === 'object',
      }, res);
      return undefined;
    }
    case 'create': {
      const body = decodeObjectBody(req, await readBody(req));
      if (info.subresource === 'token') return { status: 201, body: tokenRequest({ ...deps.review, user }, ns ?? '', namedOnly(), body) };
      if (isVirtualResource(type)) return { status: 201, body: review({ ...deps.review, user }, type, body) };
      if (info.name !== undefined) throw methodNotAllowed();
      const created = api.create(type, info.namespace, body, { ...writeOptions(req, query, info, warnings), user });
      return { status: 201, body: represent(rep, type, query, created), contentType: contentTypeOf(rep), warnings };
    }
    case 'update': {
      const name = namedOnly();
      const body = decodeObjectBody(req, await readBody(req));
      if (info.subresource === 'scale') {
        const replicas = isRecord(body) && isRecord(body.spec) ? body.spec.replicas : undefined;
        const updated = api.patch(type, ns, name, 'merge', { spec: { replicas } }, writeOptions(req, query, { ...info, subresource: undefined }, warnings));
        return { status: 200, body: scaleOf(updated), warnings };
      }
      if (info.subresource === 'finalize') {
        const finalizers = isRecord(body) && isRecord(body.spec) ? body.spec.finalizers : [];
        const updated = api.patch(type, ns, name, 'merge', { spec: { finalizers: finalizers ?? [] } }, {});
        return { status: 200, body: updated };
      }
      const updated = api.update(type, ns, name, body, { ...writeOptions(req, query, info, warnings), user });
      return { status: 200, body: represent(rep, type, query, updated), contentType: contentTypeOf(rep), warnings };
    }
    case 'patch': {
      const name = namedOnly();
      const { patchType, patch } = decodePatchBody(req, await readBody(req));
      const opts = { ...writeOptions(req, query, info, warnings), user };
      const existed = api.find(type, ns, name) !== undefined;
      if (info.subresource === 'scale') {
        const current = scaleOf(api.get(type, ns, name));
        const patched = patchType === 'json' ? applyJsonPatch(current, patch) : applyMergePatch(current, patch);
        const replicas = isRecord(patched) && isRecord(patched.spec) ? patched.spec.replicas : undefined;
        const updated = api.patch(type, ns, name, 'merge', { spec: { replicas } }, { ...opts, subresource: undefined });
        return { status: 200, body: scaleOf(updated), warnings };
      }
      const patched = api.patch(type, ns, name, patchType, patch, opts);
      return { status: existed ? 200 : 201, body: represent(rep, type, query, patched), contentType: contentTypeOf(rep), warnings };
    }
    case 'delete': {
      const name = namedOnly();
      const opts = deleteOptions(query, decodeOptionalBody(req, await readBody(req)));
      const result = deleteObject(api, type, ns, name, opts);
      if (result.removed && type.custom) {
        return { status: 200, body: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details: { name, group: type.group, kind: type.plural, uid: result.object.metadata.uid } } };
      }
      // 202 only when the object is still there and the client asked with orphanDependents=false (handlers/delete.go).
      return { status: !result.removed && opts.orphanDependentsFalse === true ? 202 : 200, body: result.object };
    }
    case 'deletecollection': {
      const opts = deleteOptions(query, decodeOptionalBody(req, await readBody(req)));
      const { items, resourceVersion } = api.list(type, ns, { labelSelector: query.get('labelSelector'), fieldSelector: query.get('fieldSelector') });
      const deleted = items.map((o) => deleteObject(api, type, o.metadata.namespace, o.metadata.name as string, opts).object);
      return { status: 200, body: { kind: type.listKind, apiVersion: groupVersion(type.group, type.version), metadata: { resourceVersion }, items: deleted } };
    }
    default:
      throw methodNotAllowed();
  }
}


