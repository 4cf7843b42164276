// How answers are represented: the object itself, a Table or PartialObjectMetadata, and list metadata.
import type { Representation } from './content-negotiation.js';
import { toTable, type IncludeObject } from './table-printer.js';
import type { KubeObject, ResourceType } from './types.js';

export function listMeta(resourceVersion: string, continueToken?: string, remaining?: number): Record<string, unknown> {
  return { resourceVersion, ...(continueToken ? { continue: continueToken } : {}), ...(remaining !== undefined ? { remainingItemCount: remaining } : {}) };
}

export function includeObject(query: URLSearchParams): IncludeObject {
  const v = query.get('includeObject');
  return v === 'None' || v === 'Object' ? v : 'Metadata';
}

export function represent(rep: Representation, type: ResourceType, query: URLSearchParams, item: KubeObject): unknown {
  if (rep.form === 'Table') return withTableVersion(toTable(type, [item], includeObject(query), {}), rep.version);
  if (rep.form === 'PartialObjectMetadata') return { kind: 'PartialObjectMetadata', apiVersion: `meta.k8s.io/${rep.version}`, metadata: item.metadata };
  return item;
}

export function withTableVersion(table: Record<string, unknown>, version: string): Record<string, unknown> {
  return { ...table, apiVersion: `meta.k8s.io/${version}` };
}
