// ConfigMap and Secret validation as pkg/apis/core/validation: keys, sizes, Secret types and immutability.
import { forbiddenField, invalidEach, invalidValue, requiredValue, tooLong } from './field-errors.js';
import type { StatusCause } from './status-errors.js';
import type { KubeObject } from './types.js';
import { key, rec, str } from './validation-common.js';
import { isConfigMapKey } from './validation-formats.js';

const MAX_SIZE = 1024 * 1024;

function decodedLength(base64: string): number {
  return Buffer.from(base64, 'base64').length;
}

function immutability(o: KubeObject, old: KubeObject | undefined, fields: string[]): StatusCause[] {
  if (old === undefined || old.immutable !== true) return [];
  const causes: StatusCause[] = [];
  if (o.immutable !== true) causes.push(forbiddenField('immutable', 'field is immutable when `immutable` is set'));
  for (const f of fields) if (JSON.stringify(o[f] ?? {}) !== JSON.stringify(old[f] ?? {})) causes.push(forbiddenField(f, 'field is immutable when `immutable` is set'));
  return causes;
}

export function validateConfigMap(o: KubeObject, old: KubeObject | undefined): StatusCause[] {
  const causes: StatusCause[] = [];
  const data = rec(o.data);
  const binary = rec(o.binaryData);
  let size = 0;
  for (const [k, v] of Object.entries(data)) {
    causes.push(...invalidEach(key('data', k), k, isConfigMapKey(k)));
    if (k in binary) causes.push(invalidValue(key('data', k), k, 'duplicate of key present in binaryData'));
    size += Buffer.byteLength(str(v));
  }
  for (const [k, v] of Object.entries(binary)) {
    causes.push(...invalidEach(key('binaryData', k), k, isConfigMapKey(k)));
    size += decodedLength(str(v));
  }
  if (size > MAX_SIZE) causes.push(tooLong('[]', MAX_SIZE));
  return [...causes, ...immutability(o, old, ['data', 'binaryData'])];
}

/** Keys each Secret type requires (pkg/apis/core/validation ValidateSecret). */
const REQUIRED_KEYS: Record<string, string[]> = {
  'kubernetes.io/dockercfg': ['.dockercfg'],
  'kubernetes.io/dockerconfigjson': ['.dockerconfigjson'],
  'kubernetes.io/ssh-auth': ['ssh-privatekey'],
  'kubernetes.io/tls': ['tls.crt', 'tls.key'],
};

export function validateSecret(o: KubeObject, old: KubeObject | undefined): StatusCause[] {
  const causes: StatusCause[] = [];
  const data = rec(o.data);
  let size = 0;
  for (const [k, v] of Object.entries(data)) {
    causes.push(...invalidEach(key('data', k), k, isConfigMapKey(k)));
    size += decodedLength(str(v));
  }
  if (size > MAX_SIZE) causes.push(tooLong('data', MAX_SIZE));
  const type = str(o.type);
  for (const required of REQUIRED_KEYS[type] ?? []) if (!(required in data)) causes.push(requiredValue(key('data', required)));
  if (type === 'kubernetes.io/service-account-token' && str(o.metadata.annotations?.['kubernetes.io/service-account.name']) === '') {
    causes.push(requiredValue('metadata.annotations[kubernetes.io/service-account.name]'));
  }
  if (type === 'kubernetes.io/basic-auth' && !('username' in data) && !('password' in data)) {
    causes.push(requiredValue(key('data', 'username'), 'either username or password must be specified'), requiredValue(key('data', 'password'), 'either username or password must be specified'));
  }
  if (old !== undefined && str(old.type) !== type) causes.push(invalidValue('type', type, 'field is immutable'));
  return [...causes, ...immutability(o, old, ['data'])];
}
