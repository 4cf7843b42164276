// The shapes the emulator passes around: stored objects, resource types and the authenticated user.
import type { ObjectMeta as VigilObjectMeta, OwnerReference } from '@vigil/crds';
import type { Schema } from './schema.js';
import type { StatusCause } from './status-errors.js';

/** A stored Kubernetes object: plain JSON with apiVersion, kind and metadata. */
export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
  [field: string]: unknown;
}

export type { OwnerReference };

/** metav1.ObjectMeta: the fields Vigil uses (@vigil/crds) and those only a server writes; unknown ones are kept. */
export interface ObjectMeta extends VigilObjectMeta {
  deletionGracePeriodSeconds?: number;
  managedFields?: ManagedFieldsEntry[];
  [field: string]: unknown;
}

export interface ManagedFieldsEntry {
  manager: string;
  operation: 'Apply' | 'Update';
  apiVersion: string;
  time: string;
  fieldsType: 'FieldsV1';
  fieldsV1: Record<string, unknown>;
  subresource?: string;
}

/** A printer column of a resource's Table representation. */
export interface PrinterColumn {
  name: string;
  type: string;
  format?: string;
  description?: string;
  priority?: number;
  jsonPath: string;
}

/** One REST resource the emulator serves (a built-in kind or a kind a CRD defines). */
export interface ResourceType {
  group: string;
  version: string;
  kind: string;
  listKind: string;
  plural: string;
  singular: string;
  shortNames: string[];
  categories: string[];
  namespaced: boolean;
  verbs: string[];
  /** Subresources beyond the object itself: status, scale, token, … */
  subresources: string[];
  /** The schema of the whole object; undefined = anything goes (preserve unknown fields). */
  schema: Schema | undefined;
  /** Custom resource (pruning, defaulting, CRD Table columns, Status answers on delete). */
  custom: boolean;
  /** Whether the storage bucket is this type's own or another version's (CRD versions share one). */
  storageKey: string;
  printerColumns: PrinterColumn[];
  /** Field selectors the server accepts beyond metadata.name and metadata.namespace. */
  fieldSelectors: string[];
  /** Whether spec changes bump metadata.generation (kinds with spec/status split). */
  hasGeneration: boolean;
  /** Set when this type is another version's objects seen differently (events.k8s.io/v1 over core/v1 Events). */
  view?: StorageView;
}

/** How a resource served as a view of another type's storage converts objects both ways. */
export interface StorageView {
  /** The group/version/plural of the stored type. */
  stored: { group: string; version: string; plural: string };
  toStored(o: KubeObject): KubeObject;
  fromStored(o: KubeObject): KubeObject;
  /** Checks a create through this view adds to the stored type's (given the converted object). */
  validateCreate?(stored: KubeObject): StatusCause[];
}

export interface UserInfo {
  username: string;
  uid: string;
  groups: string[];
  /** Set for ServiceAccount users. */
  serviceAccount?: { namespace: string; name: string; uid: string };
}

export function groupVersion(group: string, version: string): string {
  return group === '' ? version : `${group}/${version}`;
}

/** "cameras.vigil.io" or "pods": how error messages name a resource. */
export function qualifiedResource(type: Pick<ResourceType, 'group' | 'plural'>): string {
  return type.group === '' ? type.plural : `${type.plural}.${type.group}`;
}

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function deepClone<T>(v: T): T {
  return structuredClone(v);
}
