// Field sets in the FieldsV1 form of managedFields ("f:spec": {"f:replicas": {}}), and walking objects by them.
import { childSchema, type Schema } from './schema.js';
import { isRecord } from './types.js';

export type FieldTree = { [segment: string]: FieldTree };
export type FieldPath = string[];

function mapListKeys(schema: Schema | undefined): string[] | undefined {
  if (schema?.listType === 'map' && schema.listMapKeys !== undefined && schema.listMapKeys.length > 0) return schema.listMapKeys;
  if (schema?.patchMergeKey !== undefined) return [schema.patchMergeKey];
  return undefined;
}

/**
 * Defaults of list-map key fields: structured-merge-diff keys an item by them even when the applied configuration
 * leaves them out (a container port without `protocol` is the port with protocol TCP, not a second port).
 */
const LIST_KEY_DEFAULTS: Record<string, unknown> = { protocol: 'TCP' };

/** An item's value for a list-map key, its default when absent. */
export function keyValue(item: Record<string, unknown>, key: string): unknown {
  return item[key] ?? LIST_KEY_DEFAULTS[key];
}

function itemKey(item: Record<string, unknown>, keys: string[]): string {
  const picked: Record<string, unknown> = {};
  for (const k of [...keys].sort()) if (keyValue(item, k) !== undefined) picked[k] = keyValue(item, k);
  return `k:${JSON.stringify(picked)}`;
}

/** Every field `value` sets, as a FieldsV1 tree. */
export function fieldSetOf(value: unknown, schema: Schema | undefined): FieldTree {
  if (isRecord(value)) {
    if (schema?.mapType === 'atomic') return {};
    const tree: FieldTree = {};
    for (const [k, v] of Object.entries(value)) tree[`f:${k}`] = fieldSetOf(v, childSchema(schema, k));
    return tree;
  }
  if (Array.isArray(value)) {
    const keys = mapListKeys(schema);
    if (keys !== undefined) {
      const tree: FieldTree = {};
      for (const item of value) if (isRecord(item)) tree[itemKey(item, keys)] = { '.': {}, ...fieldSetOf(item, schema?.items) };
      return tree;
    }
    if (schema?.listType === 'set') {
      const tree: FieldTree = {};
      for (const item of value) tree[`v:${JSON.stringify(item)}`] = {};
      return tree;
    }
  }
  return {};
}

/** The paths of a tree's leaves (fields owned as a whole). */
export function leafPaths(tree: FieldTree, prefix: FieldPath = []): FieldPath[] {
  const out: FieldPath[] = [];
  for (const [segment, sub] of Object.entries(tree)) {
    if (segment === '.') continue;
    const path = [...prefix, segment];
    if (Object.keys(sub).length === 0) out.push(path);
    else out.push(...leafPaths(sub, path));
  }
  return out;
}

export function hasPath(tree: FieldTree, path: FieldPath): boolean {
  let current: FieldTree | undefined = tree;
  for (const segment of path) {
    current = current[segment];
    if (current === undefined) return false;
  }
  return true;
}

/** Whether a tree owns `path` itself (a leaf, or a list item with its "." marker), not merely fields below it. */
export function ownsPath(tree: FieldTree, path: FieldPath): boolean {
  let current: FieldTree | undefined = tree;
  for (const segment of path) {
    current = current[segment];
    if (current === undefined) return false;
  }
  return Object.keys(current).length === 0 || '.' in current;
}

export function addPath(tree: FieldTree, path: FieldPath): void {
  let current = tree;
  for (const segment of path) current = current[segment] ??= {};
}

/** Removes `path` and then any parent left with nothing in it. */
export function removePath(tree: FieldTree, path: FieldPath): void {
  const parents: FieldTree[] = [];
  let current: FieldTree | undefined = tree;
  for (const segment of path.slice(0, -1)) {
    parents.push(current);
    current = current[segment];
    if (current === undefined) return;
  }
  delete current[path[path.length - 1] as string];
  for (let i = path.length - 2; i >= 0; i--) {
    const parent = parents[i] as FieldTree;
    const child = parent[path[i] as string] as FieldTree;
    const rest = Object.keys(child).filter((k) => k !== '.');
    if (rest.length === 0) delete parent[path[i] as string];
    else break;
  }
}

function findItem(list: unknown[], segment: string): number {
  if (segment.startsWith('k:')) {
    const keys = JSON.parse(segment.slice(2)) as Record<string, unknown>;
    return list.findIndex((item) => isRecord(item) && Object.entries(keys).every(([k, v]) => JSON.stringify(keyValue(item, k)) === JSON.stringify(v)));
  }
  if (segment.startsWith('v:')) {
    const wanted = segment.slice(2);
    return list.findIndex((item) => JSON.stringify(item) === wanted);
  }
  return -1;
}

/** The value at a field path, or undefined when the object does not set it. */
export function valueAt(object: unknown, path: FieldPath): unknown {
  let current: unknown = object;
  for (const segment of path) {
    if (segment.startsWith('f:')) current = isRecord(current) ? current[segment.slice(2)] : undefined;
    else if (Array.isArray(current)) current = current[findItem(current, segment)];
    else return undefined;
    if (current === undefined) return undefined;
  }
  return current;
}

/** Deletes the field at `path` from `object` (mutating it). */
export function deleteAt(object: unknown, path: FieldPath): void {
  let current: unknown = object;
  for (const segment of path.slice(0, -1)) {
    if (segment.startsWith('f:')) current = isRecord(current) ? current[segment.slice(2)] : undefined;
    else if (Array.isArray(current)) current = current[findItem(current, segment)];
    if (current === undefined) return;
  }
  const last = path[path.length - 1] as string;
  if (last.startsWith('f:') && isRecord(current)) delete current[last.slice(2)];
  else if (Array.isArray(current)) {
    const index = findItem(current, last);
    if (index >= 0) current.splice(index, 1);
  }
}

/** `.spec.containers[name="web"].image`, as conflict messages print a path. */
export function describePath(path: FieldPath): string {
  return path.map((segment) => {
    if (segment.startsWith('f:')) return `.${segment.slice(2)}`;
    if (segment.startsWith('k:')) {
      const keys = JSON.parse(segment.slice(2)) as Record<string, unknown>;
      return `[${Object.entries(keys).map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(',')}]`;
    }
    if (segment.startsWith('v:')) return `[${segment.slice(2)}]`;
    return segment;
  }).join('');
}
