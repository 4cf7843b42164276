// Ingress, IngressClass and NetworkPolicy validation as pkg/apis/networking/validation: hosts, paths and path types, backends, class names.
import { invalidEach, invalidValue, notSupported, requiredValue } from './field-errors.js';
import type { StatusCause } from './status-errors.js';
import type { KubeObject } from './types.js';
import { arr, child, index, oneOf, present, rec, str, validateLabelSelector, type Json } from './validation-common.js';
import { isDns1035Label, isDns1123Subdomain, isIpAddress, isValidPortName, isValidPortNum, isWildcardDns1123Subdomain } from './validation-formats.js';

const PATH_TYPES = ['Exact', 'ImplementationSpecific', 'Prefix'];

function validateHost(host: string, path: string): StatusCause[] {
  const causes = invalidEach(path, host, host.includes('*') ? isWildcardDns1123Subdomain(host) : isDns1123Subdomain(host));
  if (isIpAddress(host)) causes.push(invalidValue(path, host, 'must be a DNS name, not an IP address'));
  return causes;
}

function validateBackend(backend: Json, path: string): StatusCause[] {
  const hasService = present(backend.service);
  const hasResource = present(backend.resource);
  if (hasService && hasResource) return [invalidValue(path, '', 'cannot set both resource and service backends')];
  if (!hasService && !hasResource) return [invalidValue(path, '', 'resource or service backend is required')];
  if (hasResource) {
    const r = rec(backend.resource);
    const causes: StatusCause[] = [];
    if (str(r.kind) === '') causes.push(requiredValue(child(child(path, 'resource'), 'kind')));
    if (str(r.name) === '') causes.push(requiredValue(child(child(path, 'resource'), 'name')));
    return causes;
  }
  const service = rec(backend.service);
  const causes: StatusCause[] = [];
  const name = str(service.name);
  const servicePath = child(path, 'service');
  if (name === '') causes.push(requiredValue(child(servicePath, 'name')));
  else causes.push(...invalidEach(child(servicePath, 'name'), name, isDns1035Label(name)));
  const port = rec(service.port);
  const hasName = str(port.name) !== '';
  const hasNumber = typeof port.number === 'number' && port.number !== 0;
  if (hasName && hasNumber) causes.push(invalidValue(child(servicePath, 'port'), '', 'cannot set both port name & port number'));
  else if (hasName) causes.push(...invalidEach(child(child(servicePath, 'port'), 'name'), port.name, isValidPortName(str(port.name))));
  else if (hasNumber) causes.push(...invalidEach(child(child(servicePath, 'port'), 'number'), port.number, isValidPortNum(Number(port.number))));
  else causes.push(requiredValue(child(servicePath, 'port'), 'port name or number is required'));
  return causes;
}

function validatePaths(paths: unknown[], path: string): StatusCause[] {
  const causes: StatusCause[] = [];
  paths.forEach((p, i) => {
    const entry = rec(p);
    const at = index(path, i);
    const value = str(entry.path);
    if (!present(entry.pathType) || entry.pathType === '') causes.push(requiredValue(child(at, 'pathType'), 'pathType must be specified'));
    else if (!PATH_TYPES.includes(str(entry.pathType))) causes.push(notSupported(child(at, 'pathType'), entry.pathType, PATH_TYPES));
    else if (entry.pathType === 'Exact' || entry.pathType === 'Prefix') {
      if (!value.startsWith('/')) causes.push(invalidValue(child(at, 'path'), value, 'must be an absolute path'));
      else if (value.includes('//')) causes.push(invalidValue(child(at, 'path'), value, "must not contain '//'"));
    } else if (value !== '' && !value.startsWith('/')) causes.push(invalidValue(child(at, 'path'), value, 'must be an absolute path'));
    causes.push(...validateBackend(rec(entry.backend), child(at, 'backend')));
  });
  return causes;
}

export function validateIngress(o: KubeObject): StatusCause[] {
  const spec = rec(o.spec);
  const causes: StatusCause[] = [];
  const rules = arr(spec.rules);
  if (rules.length === 0 && !present(spec.defaultBackend)) causes.push(invalidValue('spec.rules', rules, 'either `defaultBackend` or `rules` must be specified'));
  if (present(spec.defaultBackend)) causes.push(...validateBackend(rec(spec.defaultBackend), 'spec.defaultBackend'));
  rules.forEach((r, i) => {
    const rule = rec(r);
    const at = index('spec.rules', i);
    if (str(rule.host) !== '') causes.push(...validateHost(str(rule.host), child(at, 'host')));
    if (present(rule.http)) {
      const paths = arr(rec(rule.http).paths);
      if (paths.length === 0) causes.push(requiredValue(child(child(at, 'http'), 'paths')));
      causes.push(...validatePaths(paths, child(child(at, 'http'), 'paths')));
    }
  });
  arr(spec.tls).forEach((t, i) => {
    const tls = rec(t);
    const at = index('spec.tls', i);
    arr(tls.hosts).forEach((h, j) => causes.push(...validateHost(str(h), index(child(at, 'hosts'), j))));
    if (str(tls.secretName) !== '') causes.push(...invalidEach(child(at, 'secretName'), tls.secretName, isDns1123Subdomain(str(tls.secretName))));
  });
  const className = str(spec.ingressClassName);
  if (className !== '') causes.push(...invalidEach('spec.ingressClassName', className, isDns1123Subdomain(className)));
  return causes;
}

export function validateIngressClass(o: KubeObject): StatusCause[] {
  const controller = str(rec(o.spec).controller);
  if (controller === '') return [requiredValue('spec.controller')];
  if (controller.length > 250) return [invalidValue('spec.controller', controller, 'must be no more than 250 characters')];
  return [];
}

export function validateNetworkPolicy(o: KubeObject): StatusCause[] {
  const spec = rec(o.spec);
  const causes = validateLabelSelector(spec.podSelector, 'spec.podSelector');
  arr(spec.policyTypes).forEach((t, i) => causes.push(...oneOf(t, index('spec.policyTypes', i), ['Egress', 'Ingress'])));
  return causes;
}
