// Field selectors: =, == and != on the fields a resource supports (metadata.name, metadata.namespace and its own list).
import { badRequest } from './status-errors.js';
import { isRecord, type KubeObject, type ResourceType } from './types.js';

export type FieldMatcher = (object: KubeObject) => boolean;

interface FieldRequirement {
  field: string;
  value: string;
  negate: boolean;
}

/** Parses the fieldSelector parameter for `type`; 400 with the real message for a field it does not support. */
export function parseFieldSelector(selector: string | null | undefined, type: ResourceType): FieldMatcher {
  if (selector === null || selector === undefined || selector.trim() === '') return () => true;
  const requirements: FieldRequirement[] = selector.split(',').map((part) => part.trim()).filter((p) => p !== '').map((part) => {
    const m = /^([^=!]+?)\s*(==|=|!=)\s*(.*)$/.exec(part);
    if (m === null) throw badRequest(`invalid selector: '${selector}'; can't understand '${part}'`);
    const field = m[1] as string;
    if (field !== 'metadata.name' && field !== 'metadata.namespace' && !type.fieldSelectors.includes(field)) {
      throw badRequest(`field label not supported: ${field}`);
    }
    return { field, value: m[3] as string, negate: m[2] === '!=' };
  });
  return (object) => requirements.every((r) => (fieldValue(object, r.field) === r.value) !== r.negate);
}

/** The string the server compares for a field path (absent fields compare as ""). */
export function fieldValue(object: KubeObject, field: string): string {
  if (field === 'source') {
    const source = object.source;
    return isRecord(source) && typeof source.component === 'string' ? source.component : '';
  }
  let current: unknown = object;
  for (const part of field.split('.')) {
    if (!isRecord(current)) return '';
    current = current[part];
  }
  if (current === undefined || current === null) return '';
  return typeof current === 'string' ? current : String(current);
}

/** The name a fieldSelector pins (metadata.name=x), so a list or watch can look it up directly. */
export function pinnedName(selector: string | null | undefined): string | undefined {
  if (!selector) return undefined;
  for (const part of selector.split(',')) {
    const m = /^\s*metadata\.name\s*==?\s*(.+?)\s*$/.exec(part);
    if (m !== null) return m[1];
  }
  return undefined;
}
