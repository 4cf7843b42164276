// Request options read from the query and body: write options (dryRun, fieldManager, fieldValidation, force), delete options, the bearer token.
import type { IncomingMessage } from 'node:http';
import type { WriteOptions } from './object-api.js';
import type { DeleteOptions, PropagationPolicy } from './object-deletion.js';
import type { ResourceRequest } from './request-info.js';
import { badRequest } from './status-errors.js';
import { isRecord } from './types.js';
import { parseFieldValidation } from './write-preparation.js';

export function writeOptions(req: IncomingMessage, query: URLSearchParams, info: ResourceRequest, warnings: string[]): WriteOptions {
  const dryRun = query.getAll('dryRun');
  if (dryRun.some((d) => d !== 'All')) throw badRequest(`dryRun: Unsupported value: "${dryRun.join(',')}": supported values: "All"`);
  const agent = (req.headers['user-agent'] ?? 'unknown').split('/')[0] ?? 'unknown';
  return {
    dryRun: dryRun.length > 0,
    fieldManager: query.get('fieldManager') ?? agent,
    fieldValidation: parseFieldValidation(query.get('fieldValidation')),
    ...(info.subresource !== undefined ? { subresource: info.subresource } : {}),
    warnings,
    force: query.get('force') === 'true',
  };
}

export function deleteOptions(query: URLSearchParams, body: unknown): DeleteOptions {
  const b = isRecord(body) ? body : {};
  let policy = (b.propagationPolicy ?? query.get('propagationPolicy') ?? undefined) as PropagationPolicy | undefined;
  if (policy === undefined && (b.orphanDependents === true || query.get('orphanDependents') === 'true')) policy = 'Orphan';
  if (policy === undefined && (b.orphanDependents === false || query.get('orphanDependents') === 'false')) policy = 'Background';
  if (policy !== undefined && !['Background', 'Foreground', 'Orphan'].includes(policy)) {
    throw badRequest(`propagationPolicy: Unsupported value: "${policy}": supported values: "Foreground", "Background", "Orphan"`);
  }
  const pre = isRecord(b.preconditions) ? b.preconditions : {};
  const dryRun = Array.isArray(b.dryRun) ? b.dryRun.length > 0 : query.getAll('dryRun').length > 0;
  return {
    ...(policy !== undefined ? { propagationPolicy: policy } : {}),
    preconditions: { ...(typeof pre.uid === 'string' ? { uid: pre.uid } : {}), ...(typeof pre.resourceVersion === 'string' ? { resourceVersion: pre.resourceVersion } : {}) },
    dryRun,
    ...(b.orphanDependents === false || query.get('orphanDependents') === 'false' ? { orphanDependentsFalse: true } : {}),
  };
}

export function bearerToken(req: IncomingMessage): string | undefined {
  const header = req.headers.authorization;
  if (header === undefined) return undefined;
  const m = /^Bearer\s+(\S+)$/i.exec(header);
  return m === null ? undefined : m[1];
}
