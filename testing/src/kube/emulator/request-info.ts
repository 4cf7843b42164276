// Reads a request's URL and method into what it asks for: a resource verb (group, version, namespace, resource, name, subresource) or a non-resource path.
export interface ResourceRequest {
  kind: 'resource';
  verb: string;
  group: string;
  version: string;
  namespace: string | undefined;
  resource: string;
  name: string | undefined;
  subresource: string | undefined;
}

export interface NonResourceRequest {
  kind: 'nonResource';
  verb: string;
  path: string;
}

export type RequestInfo = ResourceRequest | NonResourceRequest;

const NON_RESOURCE_VERBS: Record<string, string> = { GET: 'get', HEAD: 'get', POST: 'post', PUT: 'put', PATCH: 'patch', DELETE: 'delete', OPTIONS: 'options' };

export function requestInfo(method: string, path: string, query: URLSearchParams): RequestInfo {
  const parts = path.split('/').filter((p) => p !== '').map(decodeURIComponent);
  const nonResource: NonResourceRequest = { kind: 'nonResource', verb: NON_RESOURCE_VERBS[method] ?? method.toLowerCase(), path };
  let rest: string[];
  let group: string;
  let version: string;
  if (parts[0] === 'api' && parts.length >= 3) {
    group = '';
    version = parts[1] as string;
    rest = parts.slice(2);
  } else if (parts[0] === 'apis' && parts.length >= 4) {
    group = parts[1] as string;
    version = parts[2] as string;
    rest = parts.slice(3);
  } else return nonResource;

  let watchPath = false;
  if (rest[0] === 'watch') {
    watchPath = true;
    rest = rest.slice(1);
  }
  let namespace: string | undefined;
  if (rest[0] === 'namespaces' && rest.length >= 3 && !(rest.length === 3 && (rest[2] === 'status' || rest[2] === 'finalize'))) {
    namespace = rest[1];
    rest = rest.slice(2);
  }
  const [resource, name, subresource, ...extra] = rest;
  if (resource === undefined || extra.length > 0) return nonResource;
  const watch = watchPath || query.get('watch') === 'true' || query.get('watch') === '1';
  let verb: string;
  switch (method) {
    case 'GET':
    case 'HEAD':
      verb = watch ? 'watch' : name === undefined ? 'list' : 'get';
      break;
    case 'POST': verb = 'create'; break;
    case 'PUT': verb = 'update'; break;
    case 'PATCH': verb = 'patch'; break;
    case 'DELETE': verb = name === undefined ? 'deletecollection' : 'delete'; break;
    default: verb = method.toLowerCase();
  }
  return { kind: 'resource', verb, group, version, namespace, resource, name, subresource };
}
