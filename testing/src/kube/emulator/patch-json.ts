// JSON merge patch (RFC 7386) and JSON patch (RFC 6902), as the server applies application/merge-patch+json and application/json-patch+json.
import { KubeError } from './status-errors.js';
import { deepClone, isRecord } from './types.js';

export function applyMergePatch(target: unknown, patch: unknown): unknown {
  if (!isRecord(patch)) return deepClone(patch);
  const result: Record<string, unknown> = isRecord(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = applyMergePatch(result[key], value);
  }
  return result;
}

function patchError(message: string): KubeError {
  return new KubeError(422, 'Invalid', message);
}

function parsePointer(path: string): string[] {
  if (path === '') return [];
  if (!path.startsWith('/')) throw patchError(`invalid JSON pointer: "${path}"`);
  return path.slice(1).split('/').map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function parentOf(doc: unknown, tokens: string[], path: string): { parent: Record<string, unknown> | unknown[]; last: string } {
  let current: unknown = doc;
  for (const t of tokens.slice(0, -1)) {
    if (Array.isArray(current)) current = current[Number(t)];
    else if (isRecord(current)) current = current[t];
    else current = undefined;
    if (current === undefined) throw patchError(`doc is missing path: "${path}": missing value`);
  }
  if (!Array.isArray(current) && !isRecord(current)) throw patchError(`doc is missing path: "${path}": missing value`);
  return { parent: current, last: tokens[tokens.length - 1] as string };
}

function getAt(doc: unknown, path: string): unknown {
  let current = doc;
  for (const t of parsePointer(path)) {
    if (Array.isArray(current)) current = current[Number(t)];
    else if (isRecord(current)) current = current[t];
    else current = undefined;
    if (current === undefined) throw patchError(`doc is missing path: "${path}": missing value`);
  }
  return current;
}

function add(doc: unknown, path: string, value: unknown): unknown {
  const tokens = parsePointer(path);
  if (tokens.length === 0) return value;
  const { parent, last } = parentOf(doc, tokens, path);
  if (Array.isArray(parent)) {
    const index = last === '-' ? parent.length : Number(last);
    if (!Number.isInteger(index) || index < 0 || index > parent.length) throw patchError(`add operation does not apply: doc is missing path: "${path}"`);
    parent.splice(index, 0, value);
  } else parent[last] = value;
  return doc;
}

function remove(doc: unknown, path: string): unknown {
  const tokens = parsePointer(path);
  const { parent, last } = parentOf(doc, tokens, path);
  if (Array.isArray(parent)) {
    const index = Number(last);
    if (!(index >= 0 && index < parent.length)) throw patchError(`remove operation does not apply: doc is missing path: "${path}"`);
    parent.splice(index, 1);
  } else {
    if (!(last in parent)) throw patchError(`remove operation does not apply: doc is missing path: "${path}"`);
    delete parent[last];
  }
  return doc;
}

/** Applies an RFC 6902 patch to a copy of `target`. */
export function applyJsonPatch(target: unknown, patch: unknown): unknown {
  if (!Array.isArray(patch)) throw new KubeError(400, 'BadRequest', 'json: cannot unmarshal object into Go value of type jsonpatch.Patch');
  let doc = deepClone(target);
  for (const op of patch) {
    if (!isRecord(op) || typeof op.op !== 'string' || typeof op.path !== 'string') throw patchError('invalid JSON patch operation');
    switch (op.op) {
      case 'add': doc = add(doc, op.path, deepClone(op.value)); break;
      case 'remove': doc = remove(doc, op.path); break;
      case 'replace': getAt(doc, op.path); doc = remove(doc, op.path); doc = add(doc, op.path, deepClone(op.value)); break;
      case 'move': { const v = getAt(doc, String(op.from)); doc = remove(doc, String(op.from)); doc = add(doc, op.path, v); break; }
      case 'copy': doc = add(doc, op.path, deepClone(getAt(doc, String(op.from)))); break;
      case 'test':
        if (JSON.stringify(getAt(doc, op.path)) !== JSON.stringify(op.value)) throw patchError(`the server rejected our request due to an error in our request: testing value ${op.path} failed`);
        break;
      default: throw patchError(`Unexpected kind: ${op.op}`);
    }
  }
  return doc;
}
