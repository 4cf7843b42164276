// Deletion: preconditions, finalizers and deletionTimestamp, propagation policies (the garbage collector finishes Foreground and Orphan).
import type { ObjectApi } from './object-api.js';
import { nowSeconds } from './object-api.js';
import { KubeError } from './status-errors.js';
import type { KubeObject, ResourceType } from './types.js';

export type PropagationPolicy = 'Background' | 'Foreground' | 'Orphan';

export interface DeleteOptions {
  propagationPolicy?: PropagationPolicy;
  preconditions?: { uid?: string; resourceVersion?: string };
  dryRun?: boolean;
  /** The client set the deprecated orphanDependents=false (the only case the real server answers 202 to a delete still under way). */
  orphanDependentsFalse?: boolean;
}

export interface DeleteResult {
  /** The object as deleted, or with its deletionTimestamp when finalizers keep it. */
  object: KubeObject;
  /** Whether it is gone from the store now. */
  removed: boolean;
}

export const FOREGROUND_FINALIZER = 'foregroundDeletion';
export const ORPHAN_FINALIZER = 'orphan';

export function deleteObject(api: ObjectApi, type: ResourceType, namespace: string | undefined, name: string, opts: DeleteOptions = {}): DeleteResult {
  const existing = api.get(type, namespace, name);
  const pre = opts.preconditions;
  if (pre?.uid !== undefined && pre.uid !== existing.metadata.uid) {
    throw new KubeError(409, 'Conflict', `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${existing.metadata.uid}`, { name, group: type.group, kind: type.plural });
  }
  if (pre?.resourceVersion !== undefined && pre.resourceVersion !== existing.metadata.resourceVersion) {
    throw new KubeError(409, 'Conflict', `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${existing.metadata.resourceVersion}`, { name, group: type.group, kind: type.plural });
  }
  const finalizers = [...(existing.metadata.finalizers ?? [])];
  if (opts.propagationPolicy === 'Foreground' && !finalizers.includes(FOREGROUND_FINALIZER)) finalizers.push(FOREGROUND_FINALIZER);
  if (opts.propagationPolicy === 'Orphan' && !finalizers.includes(ORPHAN_FINALIZER)) finalizers.push(ORPHAN_FINALIZER);
  const isNamespace = type.storageKey === '/namespaces';
  if (finalizers.length === 0 && !isNamespace) {
    if (opts.dryRun) return { object: existing, removed: true };
    const removed = api.store.remove(type.storageKey, existing) ?? existing;
    return { object: removed, removed: true };
  }
  if (existing.metadata.deletionTimestamp !== undefined && finalizers.length === (existing.metadata.finalizers ?? []).length) {
    return { object: existing, removed: false };
  }
  const marked: KubeObject = {
    ...existing,
    metadata: { ...existing.metadata, deletionTimestamp: existing.metadata.deletionTimestamp ?? nowSeconds(), deletionGracePeriodSeconds: 0, ...(finalizers.length > 0 ? { finalizers } : {}) },
  };
  if (isNamespace) marked.status = { ...(marked.status as Record<string, unknown> | undefined), phase: 'Terminating' };
  if (opts.dryRun) return { object: marked, removed: false };
  return { object: api.store.put(type.storageKey, marked), removed: false };
}

/** Removes one finalizer from an object (as its controller would), deleting it when none remain and it is being deleted. */
export function removeFinalizer(api: ObjectApi, type: ResourceType, object: KubeObject, finalizer: string): void {
  const current = api.find(type, object.metadata.namespace, object.metadata.name as string);
  if (current === undefined || !(current.metadata.finalizers ?? []).includes(finalizer)) return;
  const finalizers = (current.metadata.finalizers ?? []).filter((f) => f !== finalizer);
  const next: KubeObject = { ...current, metadata: { ...current.metadata, finalizers } };
  if (finalizers.length === 0) delete next.metadata.finalizers;
  if (finalizers.length === 0 && current.metadata.deletionTimestamp !== undefined) api.store.remove(type.storageKey, next);
  else api.store.put(type.storageKey, next);
}
