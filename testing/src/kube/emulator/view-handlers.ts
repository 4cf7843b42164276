// Verbs on a resource served as a view of another type's storage (events.k8s.io/v1 Events): convert in, delegate to the stored type, convert out.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { contentTypeOf, negotiate } from './content-negotiation.js';
import { parseFieldSelector } from './field-selector.js';
import { decodeObjectBody, decodeOptionalBody, decodePatchBody, readBody } from './http-body.js';
import { parseLabelSelector } from './label-selector.js';
import { deleteObject } from './object-deletion.js';
import { applyJsonPatch, applyMergePatch } from './patch-json.js';
import { applyStrategicMergePatch } from './patch-strategic.js';
import type { ResourceRequest } from './request-info.js';
import { includeObject, listMeta, represent, withTableVersion } from './representation.js';
import { bearerToken, deleteOptions, writeOptions } from './request-options.js';
import type { Reply, ResourceHandlerDeps } from './resource-handlers.js';
import { invalid, KubeError, methodNotAllowed, pathNotFound } from './status-errors.js';
import { toTable } from './table-printer.js';
import { groupVersion, type KubeObject, type ResourceType, type StorageView } from './types.js';
import { serveWatch } from './watch-stream.js';
import { checkBodyType } from './write-preparation.js';

export async function handleView(deps: ResourceHandlerDeps, type: ResourceType, info: ResourceRequest, req: IncomingMessage, res: ServerResponse, query: URLSearchParams): Promise<Reply | undefined> {
  const view = type.view as StorageView;
  const stored = deps.registry.lookup(view.stored.group, view.stored.version, view.stored.plural);
  if (stored === undefined) throw pathNotFound();
  const { api } = deps;
  const rep = negotiate(req.headers.accept);
  const ns = type.namespaced ? info.namespace : undefined;
  const warnings: string[] = [];
  const out = (o: Parameters<StorageView['fromStored']>[0]): Reply => ({ status: 200, body: represent(rep, type, query, view.fromStored(o)), contentType: contentTypeOf(rep), warnings });
  const name = (): string => {
    if (info.name === undefined || (type.namespaced && ns === undefined)) throw methodNotAllowed();
    return info.name;
  };
  switch (info.verb) {
    case 'get':
      return out(api.get(stored, ns, name()));
    case 'list': {
      const result = api.list(stored, ns, { labelSelector: query.get('labelSelector'), fieldSelector: query.get('fieldSelector'), limit: Number(query.get('limit') ?? '0') || 0, continueToken: query.get('continue') });
      const meta = listMeta(result.resourceVersion, result.continueToken, result.remainingItemCount);
      if (rep.form === 'Table') return { status: 200, body: withTableVersion(toTable(stored, result.items, includeObject(query), meta), rep.version), contentType: contentTypeOf(rep) };
      return { status: 200, body: { kind: type.listKind, apiVersion: groupVersion(type.group, type.version), metadata: meta, items: result.items.map(view.fromStored) } };
    }
    case 'watch': {
      const timeout = Number(query.get('timeoutSeconds') ?? '');
      serveWatch(api.store, deps.watches, {
        token: bearerToken(req),
        type: stored,
        namespace: ns,
        labels: parseLabelSelector(query.get('labelSelector')),
        fields: parseFieldSelector(query.get('fieldSelector'), stored),
        resourceVersion: query.get('resourceVersion') ?? '',
        sendInitialEvents: query.get('sendInitialEvents') === 'true',
        allowBookmarks: query.get('allowWatchBookmarks') === 'true',
        timeoutSeconds: Number.isFinite(timeout) && timeout > 0 ? timeout : 1800,
        encode: (o) => represent(rep, type, query, view.fromStored(o)),
        plainObjects: false,
      }, res);
      return undefined;
    }
    case 'create': {
      const body = view.toStored(checkBodyType(decodeObjectBody(req, await readBody(req)), type));
      if (view.validateCreate !== undefined) {
        body.metadata.namespace = info.namespace ?? body.metadata.namespace ?? 'default';
        const causes = view.validateCreate(body);
        if (causes.length > 0) throw invalid(type, body.metadata.name ?? '', causes);
      }
      return { ...out(asViewError(type, () => api.create(stored, info.namespace, body, writeOptions(req, query, info, warnings)))), status: 201 };
    }
    case 'update': {
      const body = view.toStored(checkBodyType(decodeObjectBody(req, await readBody(req)), type));
      return out(asViewError(type, () => api.update(stored, ns, name(), body, writeOptions(req, query, info, warnings))));
    }
    case 'patch': {
      const n = name();
      const { patchType, patch } = decodePatchBody(req, await readBody(req));
      const opts = writeOptions(req, query, info, warnings);
      if (patchType === 'apply') return out(asViewError(type, () => api.patch(stored, ns, n, 'apply', view.toStored(checkBodyType(patch, type)), opts)));
      const current = view.fromStored(api.get(stored, ns, n));
      const patched = patchType === 'merge' ? applyMergePatch(current, patch) : patchType === 'json' ? applyJsonPatch(current, patch) : applyStrategicMergePatch(current, patch, type.schema);
      return out(asViewError(type, () => api.update(stored, ns, n, view.toStored(checkBodyType(patched, type)), opts)));
    }
    case 'delete': {
      const result = deleteObject(api, stored, ns, name(), deleteOptions(query, decodeOptionalBody(req, await readBody(req))));
      return out(result.object);
    }
    case 'deletecollection': {
      const opts = deleteOptions(query, decodeOptionalBody(req, await readBody(req)));
      const { items, resourceVersion } = api.list(stored, ns, { labelSelector: query.get('labelSelector'), fieldSelector: query.get('fieldSelector') });
      const deleted = items.map((o) => view.fromStored(deleteObject(api, stored, o.metadata.namespace, o.metadata.name as string, opts).object));
      return { status: 200, body: { kind: type.listKind, apiVersion: groupVersion(type.group, type.version), metadata: { resourceVersion }, items: deleted } };
    }
    default:
      throw methodNotAllowed();
  }
}

/** A 422 from the stored type names the kind the client wrote (Event.events.k8s.io), as the real server's does. */
function asViewError(type: ResourceType, write: () => KubeObject): KubeObject {
  try {
    return write();
  } catch (err) {
    if (err instanceof KubeError && err.code === 422 && err.details !== undefined) throw invalid(type, err.details.name ?? '', err.details.causes ?? []);
    throw err;
  }
}
