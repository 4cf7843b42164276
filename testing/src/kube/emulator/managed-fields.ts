// Field ownership (metadata.managedFields) and server-side apply: merge, conflicts between managers, removal of fields a manager stopped applying.
import { addPath, deleteAt, describePath, fieldSetOf, hasPath, keyValue, leafPaths, ownsPath, removePath, valueAt, type FieldPath, type FieldTree } from './field-sets.js';
import { childSchema, type Schema } from './schema.js';
import { KubeError } from './status-errors.js';
import { deepClone, isRecord, type KubeObject, type ManagedFieldsEntry } from './types.js';

const SYSTEM_METADATA = ['name', 'namespace', 'uid', 'resourceVersion', 'generation', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'managedFields', 'selfLink'];

/** The part of an object whose fields managers own: no apiVersion/kind/system metadata; status only through /status. */
function ownedView(object: KubeObject, subresource: string | undefined, statusIsSubresource: boolean): Record<string, unknown> {
  const view: Record<string, unknown> = { ...object };
  delete view.apiVersion;
  delete view.kind;
  const metadata: Record<string, unknown> = { ...object.metadata };
  for (const k of SYSTEM_METADATA) delete metadata[k];
  if (Object.keys(metadata).length > 0) view.metadata = metadata;
  else delete view.metadata;
  if (subresource === 'status') return view.status === undefined ? {} : { status: view.status };
  if (statusIsSubresource) delete view.status;
  return view;
}

function treeOf(entry: ManagedFieldsEntry): FieldTree {
  return entry.fieldsV1 as FieldTree;
}

function sameEntry(e: ManagedFieldsEntry, manager: string, operation: string, subresource: string | undefined): boolean {
  return e.manager === manager && e.operation === operation && (e.subresource ?? '') === (subresource ?? '');
}

export interface OwnershipContext {
  manager: string;
  apiVersion: string;
  subresource: string | undefined;
  statusIsSubresource: boolean;
  schema: Schema | undefined;
  now: string;
}

/** After a create, update or non-apply patch: the manager takes the fields it changed, others lose them. */
export function recordUpdate(previous: KubeObject | undefined, next: KubeObject, ctx: OwnershipContext): void {
  const before = previous === undefined ? {} : ownedView(previous, ctx.subresource, ctx.statusIsSubresource);
  const after = ownedView(next, ctx.subresource, ctx.statusIsSubresource);
  const changed: FieldPath[] = leafPaths(fieldSetOf(after, ctx.schema)).filter((p) => JSON.stringify(valueAt(before, p)) !== JSON.stringify(valueAt(after, p)));
  const entries = (previous?.metadata.managedFields ?? []).map((e) => ({ ...e, fieldsV1: deepClone(e.fieldsV1) }));
  const full = ownedView(next, undefined, false);
  for (const e of entries) {
    if (sameEntry(e, ctx.manager, 'Update', ctx.subresource)) continue;
    for (const p of changed) if (hasPath(treeOf(e), p)) removePath(treeOf(e), p);
    for (const p of leafPaths(treeOf(e))) if (valueAt(full, p) === undefined) removePath(treeOf(e), p);
  }
  let mine = entries.find((e) => sameEntry(e, ctx.manager, 'Update', ctx.subresource));
  if (changed.length > 0 || previous === undefined) {
    if (mine === undefined) {
      mine = { manager: ctx.manager, operation: 'Update', apiVersion: ctx.apiVersion, time: ctx.now, fieldsType: 'FieldsV1', fieldsV1: {}, ...(ctx.subresource ? { subresource: ctx.subresource } : {}) };
      entries.push(mine);
    }
    for (const p of changed) addPath(treeOf(mine), p);
    mine.time = ctx.now;
    mine.apiVersion = ctx.apiVersion;
  }
  setEntries(next, entries);
}

function setEntries(object: KubeObject, entries: ManagedFieldsEntry[]): void {
  const kept = entries.filter((e) => Object.keys(e.fieldsV1).length > 0);
  if (kept.length > 0) object.metadata.managedFields = kept;
  else delete object.metadata.managedFields;
}

/** Merges an applied configuration into the live object the way server-side apply does (map lists by key, sets by value). */
export function mergeApplied(live: unknown, applied: unknown, schema: Schema | undefined): unknown {
  if (isRecord(applied) && isRecord(live) && schema?.mapType !== 'atomic') {
    const out: Record<string, unknown> = { ...live };
    for (const [k, v] of Object.entries(applied)) out[k] = v === null ? null : mergeApplied(live[k], v, childSchema(schema, k));
    return out;
  }
  if (Array.isArray(applied) && Array.isArray(live)) {
    const keys = schema?.listType === 'map' ? schema.listMapKeys : schema?.patchMergeKey !== undefined ? [schema.patchMergeKey] : undefined;
    if (keys !== undefined) {
      const out = [...live];
      for (const item of applied) {
        if (!isRecord(item)) continue;
        const i = out.findIndex((o) => isRecord(o) && keys.every((k) => JSON.stringify(keyValue(o, k)) === JSON.stringify(keyValue(item, k))));
        if (i >= 0) out[i] = mergeApplied(out[i], item, schema?.items);
        else out.push(deepClone(item));
      }
      return out;
    }
    if (schema?.listType === 'set') {
      const seen = new Set(live.map((v) => JSON.stringify(v)));
      return [...live, ...applied.filter((v) => !seen.has(JSON.stringify(v)))];
    }
  }
  return deepClone(applied);
}

/**
 * Server-side apply of `applied` onto `live` (undefined = create). Throws 409 on fields another manager owns with
 * a different value unless `force`; removes fields this manager applied before and no longer applies.
 */
export function serverSideApply(live: KubeObject | undefined, applied: KubeObject, ctx: OwnershipContext & { force: boolean }): KubeObject {
  const appliedView = ownedView(applied, ctx.subresource, ctx.statusIsSubresource);
  const appliedSet = fieldSetOf(appliedView, ctx.schema);
  const appliedLeaves = leafPaths(appliedSet);
  const entries = (live?.metadata.managedFields ?? []).map((e) => ({ ...e, fieldsV1: deepClone(e.fieldsV1) }));
  const liveView = live === undefined ? {} : ownedView(live, ctx.subresource, ctx.statusIsSubresource);
  const conflicts: FieldConflict[] = [];
  for (const e of entries) {
    // A manager is its name and operation: kubectl's own earlier Update (kubectl scale) does conflict with its Apply.
    if (sameEntry(e, ctx.manager, 'Apply', ctx.subresource)) continue;
    for (const p of appliedLeaves) {
      if (ownsPath(treeOf(e), p) && JSON.stringify(valueAt(liveView, p)) !== JSON.stringify(valueAt(appliedView, p))) {
        conflicts.push({ manager: e.manager, operation: e.operation, apiVersion: e.apiVersion, ...(e.subresource ? { subresource: e.subresource } : {}), path: p });
      }
    }
  }
  if (conflicts.length > 0 && !ctx.force) throw applyConflict(conflicts);
  if (ctx.force) for (const c of conflicts) for (const e of entries) if (!sameEntry(e, ctx.manager, 'Apply', ctx.subresource) && ownsPath(treeOf(e), c.path)) removePath(treeOf(e), c.path);

  let merged: KubeObject;
  if (live === undefined) merged = deepClone(applied);
  else {
    merged = mergeApplied(live, { ...applied, metadata: { ...applied.metadata, name: live.metadata.name } }, ctx.schema) as KubeObject;
    merged.metadata = { ...(merged.metadata as Record<string, unknown>) };
    const previous = entries.find((e) => sameEntry(e, ctx.manager, 'Apply', ctx.subresource));
    if (previous !== undefined) {
      const others = entries.filter((e) => e !== previous);
      for (const p of leafPaths(treeOf(previous))) {
        if (hasPath(appliedSet, p) || others.some((o) => hasPath(treeOf(o), p))) continue;
        deleteAt(merged, p);
      }
    }
  }
  const kept = entries.filter((e) => !sameEntry(e, ctx.manager, 'Apply', ctx.subresource));
  kept.push({ manager: ctx.manager, operation: 'Apply', apiVersion: ctx.apiVersion, time: ctx.now, fieldsType: 'FieldsV1', fieldsV1: appliedSet, ...(ctx.subresource ? { subresource: ctx.subresource } : {}) });
  setEntries(merged, kept);
  return merged;
}

export interface FieldConflict {
  manager: string;
  operation: ManagedFieldsEntry['operation'];
  apiVersion: string;
  subresource?: string;
  path: FieldPath;
}

/** A server-side apply conflict, with the conflicting paths (for the client-side apply upgrade). */
export class ApplyConflictError extends KubeError {
  constructor(message: string, details: ConstructorParameters<typeof KubeError>[3], readonly conflicts: FieldConflict[]) {
    super(409, 'Conflict', message, details);
  }
}

/**
 * Fields `kubectl` may take over from its own client-side apply: those of the last-applied-configuration
 * annotation whose values still equal the live object's (apimachinery's lastAppliedManager rule).
 */
export function fieldsFromLastApplied(live: KubeObject, ctx: OwnershipContext): FieldTree | undefined {
  const annotation = live.metadata.annotations?.['kubectl.kubernetes.io/last-applied-configuration'];
  if (annotation === undefined || annotation === '') return undefined;
  let lastApplied: unknown;
  try {
    lastApplied = JSON.parse(annotation);
  } catch {
    return undefined;
  }
  if (!isRecord(lastApplied) || lastApplied.apiVersion !== ctx.apiVersion) return undefined;
  const lastView = ownedView({ ...(lastApplied as KubeObject), metadata: isRecord(lastApplied.metadata) ? lastApplied.metadata : {} }, ctx.subresource, ctx.statusIsSubresource);
  const liveView = ownedView(live, ctx.subresource, ctx.statusIsSubresource);
  const allowed: FieldTree = {};
  for (const p of leafPaths(fieldSetOf(lastView, ctx.schema))) {
    if (JSON.stringify(valueAt(lastView, p)) === JSON.stringify(valueAt(liveView, p))) addPath(allowed, p);
  }
  return allowed;
}

/**
 * The manager as structured-merge-diff identifies it (BuildManagerIdentifier: no time, no apiVersion for appliers),
 * which is also what conflicts are grouped and sorted by.
 */
function managerIdentifier(c: FieldConflict): string {
  return JSON.stringify({ manager: c.manager, operation: c.operation, ...(c.operation === 'Update' ? { apiVersion: c.apiVersion } : {}), ...(c.subresource ? { subresource: c.subresource } : {}) });
}

/** How the apiserver prints a manager in a conflict (fieldmanager printManager). */
function describeManager(c: FieldConflict): string {
  const name = `${JSON.stringify(c.manager)}${c.subresource ? ` with subresource ${JSON.stringify(c.subresource)}` : ''}`;
  return c.operation === 'Update' ? `${name} using ${c.apiVersion}` : name;
}

/** The 409 of a server-side apply with conflicts, worded as k8s.io/apiserver's fieldmanager words it. */
export function applyConflict(conflicts: FieldConflict[]): ApplyConflictError {
  let message: string;
  if (conflicts.length === 1) {
    const c = conflicts[0] as FieldConflict;
    message = `Apply failed with 1 conflict: conflict with ${describeManager(c)}: ${describePath(c.path)}`;
  } else {
    const byManager = new Map<string, FieldConflict[]>();
    for (const c of conflicts) byManager.set(managerIdentifier(c), [...(byManager.get(managerIdentifier(c)) ?? []), c]);
    const lines: string[] = [];
    for (const id of [...byManager.keys()].sort()) {
      const group = byManager.get(id) as FieldConflict[];
      lines.push(`conflicts with ${describeManager(group[0] as FieldConflict)}:`, ...group.map((c) => `- ${describePath(c.path)}`).sort());
    }
    message = `Apply failed with ${conflicts.length} conflicts: ${lines.join('\n')}`;
  }
  return new ApplyConflictError(message, {
    causes: conflicts.map((c) => ({ reason: 'FieldManagerConflict', message: `conflict with ${describeManager(c)}`, field: describePath(c.path) })),
  }, conflicts);
}
