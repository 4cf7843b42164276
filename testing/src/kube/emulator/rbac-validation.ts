// RBAC object validation as pkg/apis/rbac/validation: policy rules, role references and binding subjects.
import { invalidEach, invalidValue, notSupported, requiredValue } from './field-errors.js';
import type { StatusCause } from './status-errors.js';
import type { KubeObject } from './types.js';
import { arr, child, index, rec, str, validateLabelSelector, type Json } from './validation-common.js';
import { isDns1123Subdomain, isPathSegmentName } from './validation-formats.js';

const GROUP = 'rbac.authorization.k8s.io';

function validateRule(rule: Json, namespaced: boolean, path: string): StatusCause[] {
  const causes: StatusCause[] = [];
  if (arr(rule.verbs).length === 0) causes.push(requiredValue(child(path, 'verbs'), 'verbs must contain at least one value'));
  const urls = arr(rule.nonResourceURLs);
  if (urls.length > 0) {
    if (namespaced) causes.push(invalidValue(child(path, 'nonResourceURLs'), urls, 'namespaced rules cannot apply to non-resource URLs'));
    if (arr(rule.apiGroups).length > 0 || arr(rule.resources).length > 0 || arr(rule.resourceNames).length > 0) {
      causes.push(invalidValue(child(path, 'nonResourceURLs'), urls, 'rules cannot apply to both regular resources and non-resource URLs'));
    }
    return causes;
  }
  if (arr(rule.apiGroups).length === 0) causes.push(requiredValue(child(path, 'apiGroups'), 'resource rules must supply at least one api group'));
  if (arr(rule.resources).length === 0) causes.push(requiredValue(child(path, 'resources'), 'resource rules must supply at least one resource'));
  return causes;
}

function validateRules(o: KubeObject, namespaced: boolean): StatusCause[] {
  return arr(o.rules).flatMap((r, i) => validateRule(rec(r), namespaced, index('rules', i)));
}

export function validateRole(o: KubeObject): StatusCause[] {
  return validateRules(o, true);
}

export function validateClusterRole(o: KubeObject): StatusCause[] {
  const causes = validateRules(o, false);
  arr(rec(o.aggregationRule).clusterRoleSelectors).forEach((s, i) => causes.push(...validateLabelSelector(s, index('aggregationRule.clusterRoleSelectors', i))));
  return causes;
}

function validateSubject(subject: Json, namespaced: boolean, path: string): StatusCause[] {
  const causes: StatusCause[] = [];
  const name = str(subject.name);
  if (name === '') causes.push(requiredValue(child(path, 'name')));
  switch (subject.kind) {
    case 'ServiceAccount':
      if (name !== '') causes.push(...invalidEach(child(path, 'name'), name, isDns1123Subdomain(name)));
      if (str(subject.apiGroup) !== '') causes.push(notSupported(child(path, 'apiGroup'), subject.apiGroup, ['']));
      if (!namespaced && str(subject.namespace) === '') causes.push(requiredValue(child(path, 'namespace')));
      break;
    case 'User':
    case 'Group':
      if (subject.apiGroup !== GROUP) causes.push(notSupported(child(path, 'apiGroup'), subject.apiGroup ?? '', [GROUP]));
      break;
    default:
      causes.push(notSupported(child(path, 'kind'), subject.kind ?? '', ['ServiceAccount', 'User', 'Group']));
  }
  return causes;
}

function validateBinding(o: KubeObject, old: KubeObject | undefined, namespaced: boolean): StatusCause[] {
  const causes: StatusCause[] = [];
  const ref = rec(o.roleRef);
  if (ref.apiGroup !== GROUP) causes.push(notSupported('roleRef.apiGroup', ref.apiGroup ?? '', [GROUP]));
  const kinds = namespaced ? ['Role', 'ClusterRole'] : ['ClusterRole'];
  if (!kinds.includes(str(ref.kind))) causes.push(notSupported('roleRef.kind', ref.kind ?? '', kinds));
  const name = str(ref.name);
  if (name === '') causes.push(requiredValue('roleRef.name'));
  else causes.push(...invalidEach('roleRef.name', name, isPathSegmentName(name)));
  arr(o.subjects).forEach((s, i) => causes.push(...validateSubject(rec(s), namespaced, index('subjects', i))));
  if (old !== undefined && JSON.stringify(rec(old.roleRef)) !== JSON.stringify(ref)) causes.push(invalidValue('roleRef', ref, 'cannot change roleRef'));
  return causes;
}

export function validateRoleBinding(o: KubeObject, old: KubeObject | undefined): StatusCause[] {
  return validateBinding(o, old, true);
}

export function validateClusterRoleBinding(o: KubeObject, old: KubeObject | undefined): StatusCause[] {
  return validateBinding(o, old, false);
}
