// Name rules for metadata.name (DNS subdomain, DNS label, path segment) and generateName suffixes.
import { randomBytes } from 'node:crypto';
import type { StatusCause } from './status-errors.js';
import type { ResourceType } from './types.js';

const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** Kinds whose names need only be valid path segments (RBAC objects may be called "system:foo"). */
const PATH_SEGMENT_NAMED = new Set(['rbac.authorization.k8s.io/roles', 'rbac.authorization.k8s.io/rolebindings', 'rbac.authorization.k8s.io/clusterroles', 'rbac.authorization.k8s.io/clusterrolebindings']);
const DNS_LABEL_NAMED = new Set(['/namespaces', '/services']);

export function validateName(type: ResourceType, name: string): StatusCause[] {
  const where = 'metadata.name';
  if (PATH_SEGMENT_NAMED.has(type.storageKey)) {
    if (name === '.' || name === '..' || name.includes('/') || name.includes('%')) {
      return [{ field: where, message: `Invalid value: "${name}": may not contain '/' or '%'` }];
    }
    return [];
  }
  if (DNS_LABEL_NAMED.has(type.storageKey)) {
    if (name.length > 63 || !DNS_LABEL.test(name)) {
      return [{ field: where, message: `Invalid value: "${name}": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')` }];
    }
    return [];
  }
  if (name.length > 253 || !DNS_SUBDOMAIN.test(name)) {
    return [{ field: where, message: `Invalid value: "${name}": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')` }];
  }
  return [];
}

const SUFFIX_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

/** generateName + 5 random characters, as the real server picks them. */
export function generatedName(prefix: string): string {
  const bytes = randomBytes(5);
  let suffix = '';
  for (const b of bytes) suffix += SUFFIX_ALPHABET[b % SUFFIX_ALPHABET.length];
  return `${prefix}${suffix}`;
}
