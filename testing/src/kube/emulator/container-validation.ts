// Container validation as pkg/apis/core/validation: names, image, ports, env, volume mounts, resources, probes, pull policy and security context.
import { forbiddenField, invalidEach, invalidValue, notFoundValue, notSupported, requiredValue } from './field-errors.js';
import { isQuantityError, parseQuantity } from './quantity.js';
import type { StatusCause } from './status-errors.js';
import { arr, child, index, IS_NEGATIVE, key, nonNegative, oneOf, present, rec, str, UniqueNames, validatePortNumOrName, type Json } from './validation-common.js';
import { isConfigMapKey, isDns1123Label, isQualifiedName, isRelaxedEnvVarName, isValidPortName, isValidPortNum } from './validation-formats.js';

const PULL_POLICIES = ['Always', 'IfNotPresent', 'Never'];
const PROTOCOLS = ['SCTP', 'TCP', 'UDP'];
const ENV_FIELD_PATHS = ['metadata.name', 'metadata.namespace', 'metadata.uid', 'spec.nodeName', 'spec.serviceAccountName', 'status.hostIP', 'status.hostIPs', 'status.podIP', 'status.podIPs'];
const RESOURCE_FIELD_REFS = ['limits.cpu', 'limits.ephemeral-storage', 'limits.memory', 'requests.cpu', 'requests.ephemeral-storage', 'requests.memory'];
const CONTAINER_RESOURCES = new Set(['cpu', 'memory', 'ephemeral-storage']);

/** What container checks need to know of their pod. */
export interface ContainerContext {
  volumes: Set<string>;
  names: UniqueNames;
  init: boolean;
}

function validatePorts(ports: unknown, path: string): StatusCause[] {
  const causes: StatusCause[] = [];
  const names = new UniqueNames();
  arr(ports).forEach((p, i) => {
    const port = rec(p);
    const at = index(path, i);
    const name = str(port.name);
    if (name !== '') {
      const msgs = isValidPortName(name);
      causes.push(...(msgs.length > 0 ? invalidEach(child(at, 'name'), name, msgs) : names.check(name, child(at, 'name'))));
    }
    if (!present(port.containerPort) || port.containerPort === 0) causes.push(requiredValue(child(at, 'containerPort')));
    else causes.push(...invalidEach(child(at, 'containerPort'), port.containerPort, isValidPortNum(Number(port.containerPort))));
    if (present(port.hostPort) && port.hostPort !== 0) causes.push(...invalidEach(child(at, 'hostPort'), port.hostPort, isValidPortNum(Number(port.hostPort))));
    causes.push(...oneOf(port.protocol, child(at, 'protocol'), PROTOCOLS));
  });
  return causes;
}

function validateKeySelector(selector: Json, path: string): StatusCause[] {
  const causes: StatusCause[] = [];
  const k = str(selector.key);
  if (k === '') causes.push(requiredValue(child(path, 'key')));
  else causes.push(...invalidEach(child(path, 'key'), k, isConfigMapKey(k)));
  return causes;
}

function validateValueFrom(env: Json, path: string): StatusCause[] {
  if (!present(env.valueFrom)) return [];
  const from = rec(env.valueFrom);
  const causes: StatusCause[] = [];
  const sources = ['fieldRef', 'resourceFieldRef', 'configMapKeyRef', 'secretKeyRef'].filter((s) => present(from[s]));
  if (present(from.fieldRef)) {
    const ref = rec(from.fieldRef);
    const fieldPath = str(ref.fieldPath);
    const at = child(child(path, 'fieldRef'), 'fieldPath');
    if (fieldPath === '') causes.push(requiredValue(at));
    else if (!ENV_FIELD_PATHS.includes(fieldPath) && !/^metadata\.(labels|annotations)\['[^']+'\]$/.test(fieldPath)) causes.push(notSupported(at, fieldPath, ENV_FIELD_PATHS));
  }
  if (present(from.resourceFieldRef)) {
    const resource = str(rec(from.resourceFieldRef).resource);
    const at = child(child(path, 'resourceFieldRef'), 'resource');
    if (resource === '') causes.push(requiredValue(at));
    else if (!RESOURCE_FIELD_REFS.includes(resource) && !/^(limits|requests)\.hugepages-/.test(resource)) causes.push(notSupported(at, resource, RESOURCE_FIELD_REFS));
  }
  if (present(from.configMapKeyRef)) causes.push(...validateKeySelector(rec(from.configMapKeyRef), child(path, 'configMapKeyRef')));
  if (present(from.secretKeyRef)) causes.push(...validateKeySelector(rec(from.secretKeyRef), child(path, 'secretKeyRef')));
  if (sources.length === 0) causes.push(invalidValue(path, '', 'must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`'));
  else if (sources.length > 1) causes.push(invalidValue(path, '', 'may not have more than one field specified at a time'));
  else if (str(env.value) !== '') causes.push(invalidValue(path, '', 'may not be specified when `value` is not empty'));
  return causes;
}

function validateEnv(env: unknown, path: string): StatusCause[] {
  const causes: StatusCause[] = [];
  arr(env).forEach((e, i) => {
    const v = rec(e);
    const at = index(path, i);
    const name = str(v.name);
    if (name === '') causes.push(requiredValue(child(at, 'name')));
    else causes.push(...invalidEach(child(at, 'name'), name, isRelaxedEnvVarName(name)));
    causes.push(...validateValueFrom(v, child(at, 'valueFrom')));
  });
  return causes;
}

function validateEnvFrom(envFrom: unknown, path: string): StatusCause[] {
  const causes: StatusCause[] = [];
  arr(envFrom).forEach((e, i) => {
    const v = rec(e);
    const at = index(path, i);
    const prefix = str(v.prefix);
    if (prefix !== '') causes.push(...invalidEach(child(at, 'prefix'), prefix, isRelaxedEnvVarName(prefix)));
    const sources = ['configMapRef', 'secretRef'].filter((s) => present(v[s]));
    if (sources.length === 0) causes.push(invalidValue(at, '', 'must specify one of: `configMapRef` or `secretRef`'));
    else if (sources.length > 1) causes.push(invalidValue(at, '', 'may not have more than one field specified at a time'));
  });
  return causes;
}

/** A path that stays below where it is mounted: relative, no '..' element. */
export function localDescendingPath(value: string, path: string): StatusCause[] {
  const causes: StatusCause[] = [];
  if (value.startsWith('/')) causes.push(invalidValue(path, value, 'must be a relative path'));
  if (value.split('/').includes('..')) causes.push(invalidValue(path, value, "must not contain '..'"));
  return causes;
}

function validateVolumeMounts(mounts: unknown, volumes: Set<string>, path: string): StatusCause[] {
  const causes: StatusCause[] = [];
  const mountPaths = new Set<string>();
  arr(mounts).forEach((m, i) => {
    const mount = rec(m);
    const at = index(path, i);
    const name = str(mount.name);
    if (name === '') causes.push(requiredValue(child(at, 'name')));
    else if (!volumes.has(name)) causes.push(notFoundValue(child(at, 'name'), name));
    const mountPath = str(mount.mountPath);
    if (mountPath === '') causes.push(requiredValue(child(at, 'mountPath')));
    else if (mountPaths.has(mountPath)) causes.push(invalidValue(child(at, 'mountPath'), mountPath, 'must be unique'));
    mountPaths.add(mountPath);
    if (str(mount.subPath) !== '') causes.push(...localDescendingPath(str(mount.subPath), child(at, 'subPath')));
    if (present(mount.mountPropagation)) causes.push(...oneOf(mount.mountPropagation, child(at, 'mountPropagation'), ['Bidirectional', 'HostToContainer', 'None']));
  });
  return causes;
}

function isExtendedResource(name: string): boolean {
  return name.includes('/') && !name.includes('kubernetes.io/') && !name.startsWith('requests.');
}

function overcommitAllowed(name: string): boolean {
  return !isExtendedResource(name) && !name.startsWith('hugepages-');
}

function validateResourceName(name: string, path: string): StatusCause[] {
  const causes = invalidEach(path, name, isQualifiedName(name));
  if (!name.includes('/')) {
    const standard = CONTAINER_RESOURCES.has(name) || name.startsWith('hugepages-');
    if (!standard && !['pods', 'services', 'storage', 'configmaps', 'secrets', 'persistentvolumeclaims', 'resourcequotas', 'replicationcontrollers'].includes(name)) {
      causes.push(invalidValue(path, name, 'must be a standard resource type or fully qualified'));
    }
    if (!standard) causes.push(invalidValue(path, name, 'must be a standard resource for containers'));
  } else if (name.includes('kubernetes.io/') === false && !isExtendedResource(name)) {
    causes.push(invalidValue(path, name, "doesn't follow extended resource name standard"));
  }
  return causes;
}

function quantityText(v: unknown): { value: number; text: string } | undefined {
  if (typeof v !== 'string' && typeof v !== 'number') return undefined;
  const q = parseQuantity(v);
  return isQuantityError(q) ? undefined : q;
}

function validateQuantityValue(name: string, q: { value: number; text: string }, path: string): StatusCause[] {
  if (q.value < 0) return [invalidValue(path, q.text, IS_NEGATIVE)];
  if (isExtendedResource(name) && !Number.isInteger(q.value)) return [invalidValue(path, q.text, 'must be an integer')];
  return [];
}

/** ValidateContainerResourceRequirements: resource names, non-negative values, requests within limits. */
export function validateResources(resources: unknown, path: string): StatusCause[] {
  const r = rec(resources);
  const causes: StatusCause[] = [];
  const limPath = child(path, 'limits');
  const reqPath = child(path, 'requests');
  const limits = rec(r.limits);
  for (const [name, v] of Object.entries(limits)) {
    causes.push(...validateResourceName(name, key(limPath, name)));
    const q = quantityText(v);
    if (q !== undefined) causes.push(...validateQuantityValue(name, q, key(limPath, name)));
  }
  for (const [name, v] of Object.entries(rec(r.requests))) {
    const at = key(reqPath, name);
    causes.push(...validateResourceName(name, at));
    const q = quantityText(v);
    if (q === undefined) continue;
    causes.push(...validateQuantityValue(name, q, at));
    const limit = quantityText(limits[name]);
    if (limit !== undefined) {
      if (q.value !== limit.value && !overcommitAllowed(name)) causes.push(invalidValue(reqPath, q.text, `must be equal to ${name} limit of ${limit.text}`));
      else if (q.value > limit.value) causes.push(invalidValue(reqPath, q.text, `must be less than or equal to ${name} limit of ${limit.text}`));
    } else if (!overcommitAllowed(name)) causes.push(requiredValue(limPath, 'Limit must be set for non overcommitable resources'));
  }
  return causes;
}

function validateHandler(handler: Json, path: string): StatusCause[] {
  const causes: StatusCause[] = [];
  const kinds = ['exec', 'httpGet', 'tcpSocket', 'grpc', 'sleep'].filter((k) => present(handler[k]));
  if (kinds.length === 0) return [requiredValue(path, 'must specify a handler type')];
  for (const extra of kinds.slice(1)) causes.push(forbiddenField(child(path, extra), 'may not specify more than 1 handler type'));
  if (present(handler.exec) && arr(rec(handler.exec).command).length === 0) causes.push(requiredValue(child(child(path, 'exec'), 'command')));
  if (present(handler.httpGet)) {
    const get = rec(handler.httpGet);
    causes.push(...validatePortNumOrName(get.port, child(child(path, 'httpGet'), 'port')));
    if (present(get.scheme)) causes.push(...oneOf(get.scheme, child(child(path, 'httpGet'), 'scheme'), ['HTTP', 'HTTPS']));
  }
  if (present(handler.tcpSocket)) causes.push(...validatePortNumOrName(rec(handler.tcpSocket).port, child(child(path, 'tcpSocket'), 'port')));
  if (present(handler.grpc)) causes.push(...invalidEach(child(child(path, 'grpc'), 'port'), rec(handler.grpc).port, isValidPortNum(Number(rec(handler.grpc).port))));
  return causes;
}

function validateProbe(probe: unknown, path: string, mustSucceedOnce: boolean): StatusCause[] {
  if (!present(probe)) return [];
  const p = rec(probe);
  const causes = validateHandler(p, path);
  for (const f of ['initialDelaySeconds', 'timeoutSeconds', 'periodSeconds', 'successThreshold', 'failureThreshold']) causes.push(...nonNegative(p[f], child(path, f)));
  if (present(p.terminationGracePeriodSeconds) && Number(p.terminationGracePeriodSeconds) <= 0) causes.push(invalidValue(child(path, 'terminationGracePeriodSeconds'), p.terminationGracePeriodSeconds, 'must be greater than 0'));
  if (mustSucceedOnce && present(p.successThreshold) && p.successThreshold !== 1) causes.push(invalidValue(child(path, 'successThreshold'), p.successThreshold, 'must be 1'));
  return causes;
}

function validateUserId(value: unknown, path: string): StatusCause[] {
  if (typeof value !== 'number') return [];
  return value >= 0 && value <= 2147483647 ? [] : [invalidValue(path, value, 'must be between 0 and 2147483647, inclusive')];
}

/** The parts of a SeccompProfile the API checks (container or pod level). */
export function validateSeccompProfile(profile: unknown, path: string): StatusCause[] {
  if (!present(profile)) return [];
  const p = rec(profile);
  const causes = oneOf(p.type, child(path, 'type'), ['Localhost', 'RuntimeDefault', 'Unconfined']);
  if (p.type === 'Localhost' && str(p.localhostProfile) === '') causes.push(requiredValue(child(path, 'localhostProfile'), 'must be set when seccomp type is Localhost'));
  if (p.type !== 'Localhost' && present(p.localhostProfile)) causes.push(invalidValue(child(path, 'localhostProfile'), p.localhostProfile, 'can only be set when seccomp type is Localhost'));
  return causes;
}

export function validateRunAsIds(context: Json, path: string): StatusCause[] {
  return [...validateUserId(context.runAsUser, child(path, 'runAsUser')), ...validateUserId(context.runAsGroup, child(path, 'runAsGroup'))];
}

function validateSecurityContext(sc: unknown, path: string): StatusCause[] {
  if (!present(sc)) return [];
  const c = rec(sc);
  const causes = validateRunAsIds(c, path);
  if (present(c.procMount)) causes.push(...oneOf(c.procMount, child(path, 'procMount'), ['Default', 'Unmasked']));
  if (c.allowPrivilegeEscalation === false && c.privileged === true) causes.push(invalidValue(path, c, 'cannot set `allowPrivilegeEscalation` to false and `privileged` to true'));
  if (c.allowPrivilegeEscalation === false && arr(rec(c.capabilities).add).includes('CAP_SYS_ADMIN')) causes.push(invalidValue(path, c, 'cannot set `allowPrivilegeEscalation` to false and `capabilities.Add` CAP_SYS_ADMIN'));
  causes.push(...validateSeccompProfile(c.seccompProfile, child(path, 'seccompProfile')));
  return causes;
}

/** One container (or init container) of a pod spec, in validateContainerCommon's order, then its probes and hooks. */
export function validateContainer(container: unknown, path: string, ctx: ContainerContext): StatusCause[] {
  const c = rec(container);
  const causes: StatusCause[] = [];
  const name = str(c.name);
  if (name === '') causes.push(requiredValue(child(path, 'name')));
  else {
    const msgs = isDns1123Label(name);
    causes.push(...(msgs.length > 0 ? invalidEach(child(path, 'name'), name, msgs) : ctx.names.check(name, child(path, 'name'))));
  }
  const image = str(c.image);
  if (image === '') causes.push(requiredValue(child(path, 'image')));
  else if (image.trim() !== image) causes.push(invalidValue(child(path, 'image'), image, 'must not have leading or trailing whitespace'));
  if (present(c.terminationMessagePolicy)) causes.push(...oneOf(c.terminationMessagePolicy, child(path, 'terminationMessagePolicy'), ['File', 'FallbackToLogsOnError']));
  causes.push(...validatePorts(c.ports, child(path, 'ports')));
  causes.push(...validateEnv(c.env, child(path, 'env')));
  causes.push(...validateEnvFrom(c.envFrom, child(path, 'envFrom')));
  causes.push(...validateVolumeMounts(c.volumeMounts, ctx.volumes, child(path, 'volumeMounts')));
  causes.push(...oneOf(c.imagePullPolicy, child(path, 'imagePullPolicy'), PULL_POLICIES));
  causes.push(...validateResources(c.resources, child(path, 'resources')));
  causes.push(...validateSecurityContext(c.securityContext, child(path, 'securityContext')));
  const sidecar = ctx.init && c.restartPolicy === 'Always';
  if (present(c.restartPolicy)) {
    causes.push(...(ctx.init ? oneOf(c.restartPolicy, child(path, 'restartPolicy'), ['Always']) : [forbiddenField(child(path, 'restartPolicy'), 'may not be set for non-init containers')]));
  }
  for (const probe of ['livenessProbe', 'readinessProbe', 'startupProbe']) {
    if (ctx.init && !sidecar && present(c[probe])) causes.push(forbiddenField(child(path, probe), 'may not be set for init containers without restartPolicy=Always'));
    else causes.push(...validateProbe(c[probe], child(path, probe), probe !== 'readinessProbe'));
  }
  const lifecycle = rec(c.lifecycle);
  if (ctx.init && !sidecar && present(c.lifecycle)) causes.push(forbiddenField(child(path, 'lifecycle'), 'may not be set for init containers without restartPolicy=Always'));
  else for (const hook of ['postStart', 'preStop']) if (present(lifecycle[hook])) causes.push(...validateHandler(rec(lifecycle[hook]), child(child(path, 'lifecycle'), hook)));
  return causes;
}
