// Validation of the workload kinds (apps and batch) and PodDisruptionBudgets, as pkg/apis/apps, batch and policy validation: selectors, templates, strategies, counts.
import { labelSelectorObjectMatcher } from './label-selector.js';
import { forbiddenField, invalidEach, invalidValue, notSupported, requiredValue } from './field-errors.js';
import { validatePodTemplateSpec } from './pod-spec-validation.js';
import type { StatusCause } from './status-errors.js';
import type { KubeObject } from './types.js';
import { arr, child, index, nonNegative, oneOf, present, rec, str, validateIntOrPercent, validateLabels, validateLabelSelector, type Json } from './validation-common.js';
import { canonicalJson } from './write-preparation.js';

function selectorMatches(selector: unknown, labels: unknown): boolean {
  const matches = labelSelectorObjectMatcher(selector as Parameters<typeof labelSelectorObjectMatcher>[0]);
  return matches(rec(labels) as Record<string, string>);
}

function emptySelector(selector: Json): boolean {
  return Object.keys(rec(selector.matchLabels)).length + arr(selector.matchExpressions).length === 0;
}

/**
 * A required selector that is not empty and that the template's labels match (ReplicaSets, Deployments, StatefulSets,
 * DaemonSets), then the template. StatefulSets get only the template's labels checked, not its pod spec: the real
 * validation leaves that out (its volume mounts may name volumeClaimTemplates), and such Pods fail when created.
 */
function validateSelectorAndTemplate(spec: Json, kindWord: string, restartPolicies: string[], fullPodSpec = true): StatusCause[] {
  const causes: StatusCause[] = [];
  const selector = spec.selector;
  if (!present(selector)) causes.push(requiredValue('spec.selector'));
  else {
    causes.push(...validateLabelSelector(selector, 'spec.selector'));
    if (emptySelector(rec(selector))) causes.push(invalidValue('spec.selector', selector, `empty selector is invalid for ${kindWord}`));
  }
  const template = rec(spec.template);
  const labels = rec(template.metadata).labels;
  if (present(selector) && !emptySelector(rec(selector)) && !selectorMatches(selector, labels)) {
    causes.push(invalidValue('spec.template.metadata.labels', labels ?? {}, '`selector` does not match template `labels`'));
  }
  if (fullPodSpec) causes.push(...validatePodTemplateSpec(template, 'spec.template'));
  else causes.push(...validateLabels(rec(template.metadata).labels, 'spec.template.labels'));
  const policy = rec(template.spec).restartPolicy;
  if (present(policy) && !restartPolicies.includes(str(policy))) causes.push(notSupported('spec.template.spec.restartPolicy', policy, restartPolicies));
  if (fullPodSpec && present(rec(template.spec).activeDeadlineSeconds)) causes.push(forbiddenField('spec.template.spec.activeDeadlineSeconds', `activeDeadlineSeconds in ${kindWord === 'deployment' ? 'ReplicaSet' : kindWord} is not Supported`));
  return causes;
}

function validateRollingUpdate(rolling: unknown, path: string, surge: boolean): StatusCause[] {
  if (!present(rolling)) return [];
  const r = rec(rolling);
  const causes = [...validateIntOrPercent(r.maxUnavailable, child(path, 'maxUnavailable'), true)];
  if (surge) {
    causes.push(...validateIntOrPercent(r.maxSurge, child(path, 'maxSurge'), false));
    const zero = (v: unknown) => v === 0 || v === '0%';
    if (zero(r.maxUnavailable) && zero(r.maxSurge)) causes.push(invalidValue(child(path, 'maxUnavailable'), r.maxUnavailable, 'may not be 0 when `maxSurge` is 0'));
  }
  return causes;
}

function immutableSelector(o: KubeObject, old: KubeObject | undefined): StatusCause[] {
  if (old === undefined) return [];
  const now = rec(o.spec).selector;
  return canonicalJson(now) === canonicalJson(rec(old.spec).selector) ? [] : [invalidValue('spec.selector', now ?? null, 'field is immutable')];
}

export function validateDeployment(o: KubeObject, old: KubeObject | undefined): StatusCause[] {
  const spec = rec(o.spec);
  const causes = [...nonNegative(spec.replicas, 'spec.replicas'), ...validateSelectorAndTemplate(spec, 'deployment', ['Always'])];
  const strategy = rec(spec.strategy);
  causes.push(...oneOf(strategy.type, 'spec.strategy.type', ['Recreate', 'RollingUpdate']));
  if (strategy.type === 'Recreate' && present(strategy.rollingUpdate)) causes.push(forbiddenField('spec.strategy.rollingUpdate', "may not be specified when strategy `type` is 'Recreate'"));
  else causes.push(...validateRollingUpdate(strategy.rollingUpdate, 'spec.strategy.rollingUpdate', true));
  causes.push(...nonNegative(spec.revisionHistoryLimit, 'spec.revisionHistoryLimit'), ...nonNegative(spec.minReadySeconds, 'spec.minReadySeconds'));
  if (typeof spec.progressDeadlineSeconds === 'number' && spec.progressDeadlineSeconds <= Number(spec.minReadySeconds ?? 0)) {
    causes.push(invalidValue('spec.progressDeadlineSeconds', spec.progressDeadlineSeconds, 'must be greater than minReadySeconds'));
  }
  return [...causes, ...immutableSelector(o, old)];
}

export function validateReplicaSet(o: KubeObject, old: KubeObject | undefined): StatusCause[] {
  const spec = rec(o.spec);
  return [...nonNegative(spec.replicas, 'spec.replicas'), ...nonNegative(spec.minReadySeconds, 'spec.minReadySeconds'), ...validateSelectorAndTemplate(spec, 'deployment', ['Always']), ...immutableSelector(o, old)];
}

export function validateDaemonSet(o: KubeObject, old: KubeObject | undefined): StatusCause[] {
  const spec = rec(o.spec);
  const strategy = rec(spec.updateStrategy);
  return [
    ...validateSelectorAndTemplate(spec, 'daemonset', ['Always']),
    ...oneOf(strategy.type, 'spec.updateStrategy.type', ['OnDelete', 'RollingUpdate']),
    ...validateRollingUpdate(strategy.rollingUpdate, 'spec.updateStrategy.rollingUpdate', true),
    ...nonNegative(spec.minReadySeconds, 'spec.minReadySeconds'),
    ...immutableSelector(o, old),
  ];
}

function validateClaimTemplates(templates: unknown, path: string): StatusCause[] {
  return arr(templates).flatMap((t, i) => validatePvcSpec(rec(t).spec, child(index(path, i), 'spec')));
}

/** The spec fields a StatefulSet update may change; the rest is immutable. */
const STATEFULSET_MUTABLE = ['replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy', 'minReadySeconds'];

export function validateStatefulSet(o: KubeObject, old: KubeObject | undefined): StatusCause[] {
  const spec = rec(o.spec);
  const causes = [
    ...nonNegative(spec.replicas, 'spec.replicas'),
    ...oneOf(spec.podManagementPolicy, 'spec.podManagementPolicy', ['OrderedReady', 'Parallel']),
    ...oneOf(rec(spec.updateStrategy).type, 'spec.updateStrategy.type', ['OnDelete', 'RollingUpdate']),
    ...validateSelectorAndTemplate(spec, 'statefulset', ['Always'], false),
    ...validateClaimTemplates(spec.volumeClaimTemplates, 'spec.volumeClaimTemplates'),
  ];
  if (old !== undefined) {
    const frozen = (s: unknown) => {
      const copy: Json = { ...rec(s) };
      for (const f of STATEFULSET_MUTABLE) delete copy[f];
      return canonicalJson(copy);
    };
    if (frozen(o.spec) !== frozen(old.spec)) {
      causes.push(forbiddenField('spec', "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden"));
    }
  }
  return causes;
}

function validateJobSpec(spec: Json, path: string): StatusCause[] {
  const causes: StatusCause[] = [];
  for (const f of ['parallelism', 'completions', 'activeDeadlineSeconds', 'backoffLimit', 'ttlSecondsAfterFinished']) causes.push(...nonNegative(spec[f], child(path, f)));
  const template = rec(spec.template);
  causes.push(...validatePodTemplateSpec(template, child(path, 'template')));
  const policy = rec(template.spec).restartPolicy;
  if (policy !== 'OnFailure' && policy !== 'Never') causes.push(notSupported(child(path, 'template.spec.restartPolicy'), policy ?? '', ['OnFailure', 'Never']));
  return causes;
}

export function validateJob(o: KubeObject): StatusCause[] {
  return validateJobSpec(rec(o.spec), 'spec');
}

export function validateCronJob(o: KubeObject): StatusCause[] {
  const spec = rec(o.spec);
  const causes: StatusCause[] = [];
  const name = str(o.metadata.name);
  if (name.length > 52) causes.push(invalidValue('metadata.name', name, 'must be no more than 52 characters'));
  if (str(spec.schedule) === '') causes.push(requiredValue('spec.schedule'));
  causes.push(...oneOf(spec.concurrencyPolicy, 'spec.concurrencyPolicy', ['Allow', 'Forbid', 'Replace']));
  causes.push(...nonNegative(spec.startingDeadlineSeconds, 'spec.startingDeadlineSeconds'));
  causes.push(...validateJobSpec(rec(rec(spec.jobTemplate).spec), 'spec.jobTemplate.spec'));
  return causes;
}

const ACCESS_MODES = ['ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOnce', 'ReadWriteOncePod'];

/** A PersistentVolumeClaim's spec (claims and StatefulSet claim templates): access modes and a storage request. */
export function validatePvcSpec(spec: unknown, path: string): StatusCause[] {
  const s = rec(spec);
  const causes: StatusCause[] = [];
  const modes = arr(s.accessModes);
  if (modes.length === 0) causes.push(requiredValue(child(path, 'accessModes'), 'at least 1 access mode is required'));
  for (const m of modes) if (!ACCESS_MODES.includes(str(m))) causes.push(notSupported(child(path, 'accessModes'), m, ACCESS_MODES));
  if (!present(rec(rec(s.resources).requests).storage)) causes.push(requiredValue(`${child(path, 'resources')}[storage]`));
  causes.push(...validateLabelSelector(s.selector, child(path, 'selector')));
  return causes;
}

export function validatePodDisruptionBudget(o: KubeObject): StatusCause[] {
  const spec = rec(o.spec);
  const causes: StatusCause[] = [];
  if (present(spec.minAvailable) && present(spec.maxUnavailable)) causes.push(invalidValue('spec', spec, 'minAvailable and maxUnavailable cannot be both set'));
  causes.push(...validateIntOrPercent(spec.minAvailable, 'spec.minAvailable', true));
  causes.push(...validateIntOrPercent(spec.maxUnavailable, 'spec.maxUnavailable', true));
  causes.push(...validateLabelSelector(spec.selector, 'spec.selector'));
  if (present(spec.unhealthyPodEvictionPolicy)) causes.push(...oneOf(spec.unhealthyPodEvictionPolicy, 'spec.unhealthyPodEvictionPolicy', ['AlwaysAllow', 'IfHealthyBudget']));
  return causes;
}

/** ResourceQuota and LimitRange values must be quantities ≥ 0 (the decoding already checked the grammar). */
export function validateEachNonNegativeQuantity(values: unknown, path: string): StatusCause[] {
  return Object.entries(rec(values)).flatMap(([k, v]) => (typeof v === 'string' && v.trim().startsWith('-') ? invalidEach(`${path}[${k}]`, v, ['must be greater than or equal to 0']) : []));
}
