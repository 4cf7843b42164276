// Strategic merge patch (application/strategic-merge-patch+json) for built-in kinds: merge keys, $patch, $retainKeys, $setElementOrder, $deleteFromPrimitiveList.
import { childSchema, type Schema } from './schema.js';
import { deepClone, isRecord } from './types.js';

const SET_ORDER = '$setElementOrder/';
const DELETE_PRIMITIVE = '$deleteFromPrimitiveList/';

/** Applies `patch` to a copy of `target`, reading list strategies from `schema`. */
export function applyStrategicMergePatch(target: unknown, patch: unknown, schema: Schema | undefined): unknown {
  if (!isRecord(patch)) return deepClone(patch);
  return mergeMap(isRecord(target) ? target : {}, patch, schema);
}

function mergeMap(target: Record<string, unknown>, patch: Record<string, unknown>, schema: Schema | undefined): Record<string, unknown> | undefined {
  const directive = patch.$patch;
  if (directive === 'delete') return undefined;
  if (directive === 'replace') {
    const replaced = deepClone(patch);
    delete replaced.$patch;
    return replaced;
  }
  const result: Record<string, unknown> = { ...target };
  const retainKeys = Array.isArray(patch.$retainKeys) ? new Set(patch.$retainKeys as string[]) : undefined;
  for (const [key, value] of Object.entries(patch)) {
    if (key === '$patch' || key === '$retainKeys' || key.startsWith(SET_ORDER) || key.startsWith(DELETE_PRIMITIVE)) continue;
    if (value === null) {
      delete result[key];
      continue;
    }
    const fieldSchema = childSchema(schema, key);
    const current = result[key];
    if (Array.isArray(value)) {
      result[key] = mergeList(Array.isArray(current) ? current : [], value, fieldSchema);
    } else if (isRecord(value) && (fieldSchema === undefined || fieldSchema.type === 'object' || fieldSchema.properties !== undefined || fieldSchema.additionalProperties !== undefined)) {
      const merged = mergeMap(isRecord(current) ? current : {}, value, fieldSchema);
      if (merged === undefined) delete result[key];
      else result[key] = merged;
    } else {
      result[key] = deepClone(value);
    }
  }
  for (const [key, value] of Object.entries(patch)) {
    if (key.startsWith(DELETE_PRIMITIVE) && Array.isArray(value)) {
      const field = key.slice(DELETE_PRIMITIVE.length);
      const drop = new Set(value.map((v) => JSON.stringify(v)));
      const list = result[field];
      if (Array.isArray(list)) result[field] = list.filter((v) => !drop.has(JSON.stringify(v)));
    }
  }
  for (const [key, value] of Object.entries(patch)) {
    if (key.startsWith(SET_ORDER) && Array.isArray(value)) {
      const field = key.slice(SET_ORDER.length);
      const list = result[field];
      if (Array.isArray(list)) result[field] = reorder(list, value, childSchema(schema, field)?.patchMergeKey);
    }
  }
  if (retainKeys !== undefined) {
    for (const key of Object.keys(result)) if (!retainKeys.has(key)) delete result[key];
  }
  return result;
}

function mergeList(target: unknown[], patch: unknown[], schema: Schema | undefined): unknown[] {
  const strategy = schema?.patchStrategy ?? '';
  if (!strategy.split(',').includes('merge')) {
    return patch.filter((item) => !(isRecord(item) && item.$patch !== undefined && Object.keys(item).length === 1)).map(deepClone);
  }
  const mergeKey = schema?.patchMergeKey;
  if (mergeKey === undefined) {
    // A set of scalars: union, keeping the target's order.
    const result = [...target];
    const seen = new Set(target.map((v) => JSON.stringify(v)));
    for (const v of patch) {
      const k = JSON.stringify(v);
      if (!seen.has(k)) {
        seen.add(k);
        result.push(deepClone(v));
      }
    }
    return result;
  }
  if (patch.some((item) => isRecord(item) && item.$patch === 'replace')) {
    return patch.filter((item) => !(isRecord(item) && item.$patch === 'replace')).map(deepClone);
  }
  const result = target.map((item) => item);
  for (const item of patch) {
    if (!isRecord(item)) continue;
    const index = result.findIndex((existing) => isRecord(existing) && existing[mergeKey] === item[mergeKey]);
    if (item.$patch === 'delete') {
      if (index >= 0) result.splice(index, 1);
      continue;
    }
    if (index >= 0) {
      const merged = mergeMap(result[index] as Record<string, unknown>, item, schema?.items);
      if (merged === undefined) result.splice(index, 1);
      else result[index] = merged;
    } else {
      result.push(mergeMap({}, item, schema?.items) ?? {});
    }
  }
  return result;
}

/** Orders `list` as `order` says; items the order does not name keep their place after the named ones. */
function reorder(list: unknown[], order: unknown[], mergeKey: string | undefined): unknown[] {
  const identity = (v: unknown): string => JSON.stringify(mergeKey !== undefined && isRecord(v) ? v[mergeKey] : v);
  const rank = new Map(order.map((v, i) => [identity(v), i]));
  return list
    .map((item, i) => ({ item, i, r: rank.get(identity(item)) }))
    .sort((a, b) => (a.r ?? order.length + a.i) - (b.r ?? order.length + b.i))
    .map((x) => x.item);
}
