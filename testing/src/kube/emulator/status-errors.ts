// The error catalogue: every failure the emulator answers, as the Kubernetes Status object the real server sends.
import { qualifiedResource, type ResourceType } from './types.js';

export interface StatusCause {
  reason?: string;
  message: string;
  field?: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

export type StatusReason =
  | 'NotFound' | 'AlreadyExists' | 'Conflict' | 'Invalid' | 'Forbidden' | 'Unauthorized' | 'Gone' | 'Expired'
  | 'BadRequest' | 'MethodNotAllowed' | 'NotAcceptable' | 'UnsupportedMediaType' | 'InternalError'
  | 'ServiceUnavailable' | 'Timeout' | 'TooManyRequests';

/** An API failure; `toStatus()` is the body the server answers. */
export class KubeError extends Error {
  constructor(
    readonly code: number,
    readonly reason: StatusReason,
    message: string,
    readonly details?: StatusDetails,
  ) {
    super(message);
    this.name = 'KubeError';
  }

  toStatus(): Record<string, unknown> {
    return {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: this.message,
      reason: this.reason,
      ...(this.details === undefined ? {} : { details: this.details }),
      code: this.code,
    };
  }
}

type Named = Pick<ResourceType, 'group' | 'plural'>;

export function notFound(type: Named, name: string): KubeError {
  return new KubeError(404, 'NotFound', `${qualifiedResource(type)} "${name}" not found`, { name, group: type.group, kind: type.plural });
}

export function namespaceNotFound(namespace: string): KubeError {
  return new KubeError(404, 'NotFound', `namespaces "${namespace}" not found`, { name: namespace, kind: 'namespaces' });
}

export function pathNotFound(): KubeError {
  return new KubeError(404, 'NotFound', 'the server could not find the requested resource');
}

export function alreadyExists(type: Named, name: string): KubeError {
  return new KubeError(409, 'AlreadyExists', `${qualifiedResource(type)} "${name}" already exists`, { name, group: type.group, kind: type.plural });
}

export function conflict(type: Named, name: string, why = 'the object has been modified; please apply your changes to the latest version and try again'): KubeError {
  return new KubeError(409, 'Conflict', `Operation cannot be fulfilled on ${qualifiedResource(type)} "${name}": ${why}`, { name, group: type.group, kind: type.plural });
}

/** 422 with one cause per field error, message as `Kind.group "name" is invalid: field: msg, field: msg`. */
export function invalid(type: Pick<ResourceType, 'group' | 'kind'>, name: string, causes: StatusCause[]): KubeError {
  const qualifiedKind = type.group === '' ? type.kind : `${type.kind}.${type.group}`;
  const parts = causes.map((c) => (c.field ? `${c.field}: ${c.message}` : c.message));
  const summary = parts.length === 1 ? parts[0] : `[${parts.join(', ')}]`;
  return new KubeError(422, 'Invalid', `${qualifiedKind} "${name}" is invalid: ${summary}`, {
    name, group: type.group, kind: type.kind, causes: causes.map((c) => ({ reason: c.reason ?? 'FieldValueInvalid', message: c.field ? `${c.message}` : c.message, ...(c.field ? { field: c.field } : {}) })),
  });
}

export function forbidden(message: string, details?: StatusDetails): KubeError {
  return new KubeError(403, 'Forbidden', message, details);
}

export function unauthorized(): KubeError {
  return new KubeError(401, 'Unauthorized', 'Unauthorized');
}

export function gone(message: string): KubeError {
  return new KubeError(410, 'Expired', message);
}

export function badRequest(message: string, causes?: StatusCause[]): KubeError {
  return new KubeError(400, 'BadRequest', message, causes === undefined ? undefined : { causes });
}

export function methodNotAllowed(message = 'the server does not allow this method on the requested resource'): KubeError {
  return new KubeError(405, 'MethodNotAllowed', message);
}

export function unsupportedMediaType(contentType: string): KubeError {
  return new KubeError(415, 'UnsupportedMediaType', `the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf (got ${contentType})`);
}

export function internalError(message: string): KubeError {
  return new KubeError(500, 'InternalError', `Internal error occurred: ${message}`, { causes: [{ message }] });
}

/** Any other status code a fault injection asks for. */
export function injectedFailure(code: number): KubeError {
  const reason: StatusReason = code === 503 ? 'ServiceUnavailable' : code === 429 ? 'TooManyRequests' : code === 504 ? 'Timeout' : 'InternalError';
  return new KubeError(code, reason, `Internal error occurred: injected failure (emulator fault, HTTP ${code})`, code === 429 ? { retryAfterSeconds: 1 } : undefined);
}

export function asKubeError(err: unknown): KubeError {
  if (err instanceof KubeError) return err;
  return internalError(err instanceof Error ? err.message : String(err));
}
