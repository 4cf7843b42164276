// Pod spec validation as pkg/apis/core/validation: volumes, containers, the pod-level fields, pod templates, and what a Pod update may change.
import { validateContainer, localDescendingPath, validateRunAsIds, validateSeccompProfile } from './container-validation.js';
import { forbiddenField, invalidEach, invalidValue, requiredValue } from './field-errors.js';
import type { StatusCause } from './status-errors.js';
import type { KubeObject } from './types.js';
import { arr, child, index, oneOf, present, rec, str, UniqueNames, validateLabels, type Json } from './validation-common.js';
import { isDns1123Label, isDns1123Subdomain, isLabelValue, isQualifiedName } from './validation-formats.js';
import { canonicalJson } from './write-preparation.js';

/** Every inline volume source a Volume may name (exactly one). */
const VOLUME_SOURCES = ['hostPath', 'emptyDir', 'gcePersistentDisk', 'awsElasticBlockStore', 'gitRepo', 'secret', 'nfs', 'iscsi', 'glusterfs', 'persistentVolumeClaim', 'rbd', 'flexVolume', 'cinder', 'cephfs', 'flocker', 'downwardAPI', 'fc', 'azureFile', 'configMap', 'vsphereVolume', 'quobyte', 'azureDisk', 'photonPersistentDisk', 'projected', 'portworxVolume', 'scaleIO', 'storageos', 'csi', 'ephemeral', 'image'];
const HOST_PATH_TYPES = ['', 'BlockDevice', 'CharDevice', 'Directory', 'DirectoryOrCreate', 'File', 'FileOrCreate', 'Socket'];
const FILE_MODE_ERROR = 'must be a number between 0 and 0777 (octal), both inclusive';

function fileMode(mode: unknown, path: string): StatusCause[] {
  return typeof mode === 'number' && (mode < 0 || mode > 0o777) ? [invalidValue(path, mode, FILE_MODE_ERROR)] : [];
}

function keyToPathItems(items: unknown, path: string): StatusCause[] {
  const causes: StatusCause[] = [];
  arr(items).forEach((it, i) => {
    const item = rec(it);
    const at = index(path, i);
    if (str(item.key) === '') causes.push(requiredValue(child(at, 'key')));
    if (str(item.path) === '') causes.push(requiredValue(child(at, 'path')));
    else causes.push(...localDescendingPath(str(item.path), child(at, 'path')));
    causes.push(...fileMode(item.mode, child(at, 'mode')));
  });
  return causes;
}

function validateVolumeSource(volume: Json, path: string): StatusCause[] {
  const sources = VOLUME_SOURCES.filter((s) => present(volume[s]));
  if (sources.length === 0) return [requiredValue(path, 'must specify a volume type')];
  const causes = sources.slice(1).map((s) => forbiddenField(child(path, s), 'may not specify more than 1 volume type'));
  const source = sources[0] as string;
  const v = rec(volume[source]);
  const at = child(path, source);
  switch (source) {
    case 'hostPath': {
      const p = str(v.path);
      if (p === '') causes.push(requiredValue(child(at, 'path')));
      else if (p.split('/').includes('..')) causes.push(invalidValue(child(at, 'path'), p, "must not contain '..'"));
      if (present(v.type)) causes.push(...oneOf(v.type, child(at, 'type'), HOST_PATH_TYPES, false));
      break;
    }
    case 'configMap':
      if (str(v.name) === '') causes.push(requiredValue(child(at, 'name')));
      causes.push(...fileMode(v.defaultMode, child(at, 'defaultMode')), ...keyToPathItems(v.items, child(at, 'items')));
      break;
    case 'secret':
      if (str(v.secretName) === '') causes.push(requiredValue(child(at, 'secretName')));
      causes.push(...fileMode(v.defaultMode, child(at, 'defaultMode')), ...keyToPathItems(v.items, child(at, 'items')));
      break;
    case 'persistentVolumeClaim':
      if (str(v.claimName) === '') causes.push(requiredValue(child(at, 'claimName')));
      break;
    case 'emptyDir':
      if (present(v.medium)) causes.push(...oneOf(v.medium, child(at, 'medium'), ['', 'Memory', 'HugePages'], false));
      break;
    case 'csi':
      if (str(v.driver) === '') causes.push(requiredValue(child(at, 'driver')));
      break;
    case 'projected':
      causes.push(...fileMode(v.defaultMode, child(at, 'defaultMode')));
      break;
  }
  return causes;
}

function validateVolumes(volumes: unknown, path: string): { causes: StatusCause[]; names: Set<string> } {
  const causes: StatusCause[] = [];
  const unique = new UniqueNames();
  const names = new Set<string>();
  arr(volumes).forEach((v, i) => {
    const volume = rec(v);
    const at = index(path, i);
    const name = str(volume.name);
    if (name === '') causes.push(requiredValue(child(at, 'name')));
    else {
      causes.push(...invalidEach(child(at, 'name'), name, isDns1123Label(name)));
      causes.push(...unique.check(name, child(at, 'name')));
      names.add(name);
    }
    causes.push(...validateVolumeSource(volume, at));
  });
  return { causes, names };
}

function validateTolerations(tolerations: unknown, path: string): StatusCause[] {
  const causes: StatusCause[] = [];
  arr(tolerations).forEach((t, i) => {
    const tol = rec(t);
    const at = index(path, i);
    const k = str(tol.key);
    if (k !== '') causes.push(...invalidEach(child(at, 'key'), k, isQualifiedName(k)));
    if (k === '' && tol.operator !== 'Exists') causes.push(invalidValue(child(at, 'operator'), tol.operator ?? '', 'operator must be Exists when `key` is empty, which means "match all values and all keys"'));
    if (present(tol.tolerationSeconds) && tol.effect !== 'NoExecute') causes.push(invalidValue(child(at, 'effect'), tol.effect ?? '', "effect must be 'NoExecute' when `tolerationSeconds` is set"));
    switch (tol.operator ?? '') {
      case '':
      case 'Equal':
        causes.push(...invalidEach(child(at, 'value'), str(tol.value), isLabelValue(str(tol.value))));
        break;
      case 'Exists':
        if (str(tol.value) !== '') causes.push(invalidValue(child(at, 'operator'), tol.value, "value must be empty when `operator` is 'Exists'"));
        break;
      default:
        causes.push(...oneOf(tol.operator, child(at, 'operator'), ['Equal', 'Exists']));
    }
    if (present(tol.effect) && tol.effect !== '') causes.push(...oneOf(tol.effect, child(at, 'effect'), ['NoSchedule', 'PreferNoSchedule', 'NoExecute']));
  });
  return causes;
}

function validatePodSecurityContext(sc: unknown, path: string): StatusCause[] {
  if (!present(sc)) return [];
  const c = rec(sc);
  const causes = validateRunAsIds(c, path);
  if (typeof c.fsGroup === 'number' && (c.fsGroup < 0 || c.fsGroup > 2147483647)) causes.push(invalidValue(child(path, 'fsGroup'), c.fsGroup, 'must be between 0 and 2147483647, inclusive'));
  arr(c.sysctls).forEach((s, i) => {
    const name = str(rec(s).name);
    const at = child(index(child(path, 'sysctls'), i), 'name');
    if (name === '') causes.push(requiredValue(at));
    else if (name.length > 253 || !/^([a-z0-9]([-_a-z0-9]*[a-z0-9])?[./])*[a-z0-9]([-_a-z0-9]*[a-z0-9])?$/.test(name)) {
      causes.push(invalidValue(at, name, 'must have at most 253 characters and match regex ^([a-z0-9]([-_a-z0-9]*[a-z0-9])?[\\./])*[a-z0-9]([-_a-z0-9]*[a-z0-9])?$'));
    }
  });
  causes.push(...validateSeccompProfile(c.seccompProfile, child(path, 'seccompProfile')));
  return causes;
}

/**
 * ValidatePodSpec. `restartPolicies` narrows what the owning kind allows (Deployments: Always; Jobs: OnFailure and
 * Never), as the workload validations do on the template.
 */
export function validatePodSpec(spec: unknown, path: string): StatusCause[] {
  const s = rec(spec);
  const { causes, names: volumes } = validateVolumes(s.volumes, child(path, 'volumes'));
  const names = new UniqueNames();
  if (arr(s.containers).length === 0) causes.push(requiredValue(child(path, 'containers')));
  arr(s.containers).forEach((c, i) => causes.push(...validateContainer(c, index(child(path, 'containers'), i), { volumes, names, init: false })));
  arr(s.initContainers).forEach((c, i) => causes.push(...validateContainer(c, index(child(path, 'initContainers'), i), { volumes, names, init: true })));
  causes.push(...oneOf(s.restartPolicy, child(path, 'restartPolicy'), ['Always', 'OnFailure', 'Never']));
  causes.push(...oneOf(s.dnsPolicy, child(path, 'dnsPolicy'), ['ClusterFirst', 'ClusterFirstWithHostNet', 'Default', 'None']));
  causes.push(...validateLabels(s.nodeSelector, child(path, 'nodeSelector')));
  causes.push(...validatePodSecurityContext(s.securityContext, child(path, 'securityContext')));
  for (const [field, rule] of [['serviceAccountName', isDns1123Subdomain], ['nodeName', isDns1123Subdomain], ['priorityClassName', isDns1123Subdomain], ['hostname', isDns1123Label], ['subdomain', isDns1123Label]] as const) {
    const v = str(s[field]);
    if (v !== '') causes.push(...invalidEach(child(path, field), v, rule(v)));
  }
  if (present(s.activeDeadlineSeconds) && !(Number(s.activeDeadlineSeconds) >= 1 && Number(s.activeDeadlineSeconds) <= 2147483647)) {
    causes.push(invalidValue(child(path, 'activeDeadlineSeconds'), s.activeDeadlineSeconds, 'must be between 1 and 2147483647, inclusive'));
  }
  causes.push(...validateTolerations(s.tolerations, child(path, 'tolerations')));
  return causes;
}

/** ValidatePodTemplateSpec: the template's labels and annotations, then its spec. */
export function validatePodTemplateSpec(template: unknown, path: string): StatusCause[] {
  const t = rec(template);
  const meta = rec(t.metadata);
  return [...validateLabels(meta.labels, child(child(path, 'metadata'), 'labels')), ...validatePodSpec(t.spec, child(path, 'spec'))];
}

/** The fields a Pod update may change; everything else in spec is immutable. */
function mutablePartsCleared(spec: unknown): string {
  const s = structuredClone(rec(spec));
  for (const list of ['containers', 'initContainers']) for (const c of arr(s[list])) if (c !== null && typeof c === 'object') delete (c as Json).image;
  for (const f of ['activeDeadlineSeconds', 'tolerations', 'terminationGracePeriodSeconds', 'schedulingGates', 'ephemeralContainers']) delete s[f];
  return canonicalJson(s);
}

export function validatePodUpdate(pod: KubeObject, old: KubeObject): StatusCause[] {
  if (mutablePartsCleared(pod.spec) === mutablePartsCleared(old.spec)) return [];
  return [forbiddenField('spec', 'pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)')];
}
