// The built-in PodSecurity admission plugin with its default configuration (no exemptions): namespace labels enforce, warn on Pods, warn on Pod templates, and are themselves validated.
import type { AdmissionAttributes, ValidatingAdmission } from './admission.js';
import type { ObjectStore } from './object-store.js';
import { compareLevels, evaluatePod, levelVersionString, policyFromLabels, sameLevelVersion, type LevelVersion } from './pod-security-policy.js';
import { forbidden, invalid, type StatusCause } from './status-errors.js';
import { isRecord, type KubeObject } from './types.js';

/** Resources with a pod template the plugin checks (warnings only: the Pods they make are what is enforced). */
const POD_CONTROLLERS = new Set(['/replicationcontrollers', '/podtemplates', 'apps/replicasets', 'apps/deployments', 'apps/statefulsets', 'apps/daemonsets', 'batch/jobs', 'batch/cronjobs']);

/** Pod subresources the plugin does not look at. */
const IGNORED_POD_SUBRESOURCES = new Set(['exec', 'attach', 'binding', 'eviction', 'log', 'portforward', 'proxy', 'status']);

function record(v: unknown): Record<string, unknown> {
  return isRecord(v) ? v : {};
}

/** The pod metadata and spec a pod-template resource carries (CronJob: its job template's). */
function podTemplateOf(o: KubeObject): { meta: unknown; spec: unknown } | undefined {
  const spec = record(o.spec);
  const template = o.kind === 'CronJob' ? record(record(record(spec.jobTemplate).spec).template) : o.kind === 'PodTemplate' ? record(o.template) : record(spec.template);
  if (!isRecord(template.spec) && !isRecord(template.metadata)) return undefined;
  return { meta: template.metadata, spec: template.spec };
}

function sameCauses(a: StatusCause[], b: StatusCause[]): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

export class PodSecurityAdmission implements ValidatingAdmission {
  constructor(private readonly store: ObjectStore) {}

  validate(a: AdmissionAttributes): void {
    const key = a.type.storageKey;
    if (key === '/namespaces') this.validateNamespace(a);
    else if (key === '/pods') this.validatePod(a);
    else if (POD_CONTROLLERS.has(key)) this.validatePodController(a);
  }

  private namespaceLabels(namespace: string | undefined): Record<string, string> | undefined {
    return namespace === undefined ? undefined : this.store.get('/namespaces', undefined, namespace)?.metadata.labels;
  }

  private validateNamespace(a: AdmissionAttributes): void {
    if (a.subresource !== undefined) return;
    const name = a.object.metadata.name as string;
    const { policy, causes } = policyFromLabels(a.object.metadata.labels);
    if (a.operation === 'CREATE') {
      if (causes.length > 0) throw invalid(a.type, name, causes);
      return;
    }
    const old = policyFromLabels(a.oldObject?.metadata.labels);
    if (causes.length > 0 && (old.causes.length === 0 || !sameCauses(causes, old.causes))) throw invalid(a.type, name, causes);
    // Tightening enforce on a namespace warns about the Pods already there that the new level would refuse.
    if (sameLevelVersion(policy.enforce, old.policy.enforce) || policy.enforce.level === 'privileged') return;
    if (policy.enforce.version === old.policy.enforce.version && compareLevels(policy.enforce.level, old.policy.enforce.level) < 1) return;
    a.warnings.push(...this.existingPodWarnings(name, policy.enforce));
  }

  private existingPodWarnings(namespace: string, enforce: LevelVersion): string[] {
    const byWarning = new Map<string, { first: string; count: number }>();
    for (const pod of this.store.list('/pods', namespace)) {
      const failed = evaluatePod(enforce, pod.metadata, pod.spec);
      if (failed === undefined) continue;
      const podName = pod.metadata.name as string;
      const seen = byWarning.get(failed.reasons);
      if (seen === undefined) byWarning.set(failed.reasons, { first: podName, count: 1 });
      else byWarning.set(failed.reasons, { first: podName < seen.first ? podName : seen.first, count: seen.count + 1 });
    }
    if (byWarning.size === 0) return [];
    const decorated = [...byWarning.entries()].map(([warning, { first, count }]) => {
      if (count === 1) return `${first}: ${warning}`;
      return `${first} (and ${count - 1} other ${count === 2 ? 'pod' : 'pods'}): ${warning}`;
    }).sort();
    return [`existing pods in namespace "${namespace}" violate the new PodSecurity enforce level "${levelVersionString(enforce)}"`, ...decorated];
  }

  private validatePod(a: AdmissionAttributes): void {
    if (a.subresource !== undefined && IGNORED_POD_SUBRESOURCES.has(a.subresource)) return;
    const { policy } = policyFromLabels(this.namespaceLabels(a.namespace));
    if (policy.enforce.level === 'privileged' && policy.warn.level === 'privileged' && policy.audit.level === 'privileged') return;
    if (a.operation === 'UPDATE' && a.oldObject !== undefined && !significantPodUpdate(a.object, a.oldObject)) return;
    const failed = evaluatePod(policy.enforce, a.object.metadata, a.object.spec);
    if (failed !== undefined) {
      throw forbidden(`pods${a.name === '' ? '' : ` "${a.name}"`} is forbidden: violates PodSecurity "${levelVersionString(policy.enforce)}": ${failed.detail}`, {
        ...(a.name !== '' ? { name: a.name } : {}),
        kind: 'pods',
      });
    }
    this.warn(a, policy.warn, a.object.metadata, a.object.spec);
  }

  private validatePodController(a: AdmissionAttributes): void {
    if (a.subresource !== undefined) return;
    const { policy } = policyFromLabels(this.namespaceLabels(a.namespace));
    if (policy.warn.level === 'privileged' && policy.audit.level === 'privileged') return;
    const template = podTemplateOf(a.object);
    if (template === undefined) return;
    this.warn(a, policy.warn, template.meta, template.spec);
  }

  private warn(a: AdmissionAttributes, level: LevelVersion, meta: unknown, spec: unknown): void {
    const failed = evaluatePod(level, meta, spec);
    if (failed !== undefined) a.warnings.push(`would violate PodSecurity "${levelVersionString(level)}": ${failed.detail}`);
  }
}

/** Only image changes and added or removed containers make the plugin look at a Pod update again. */
function significantPodUpdate(pod: KubeObject, old: KubeObject): boolean {
  const list = (o: KubeObject, field: string): Record<string, unknown>[] => {
    const v = record(o.spec)[field];
    return Array.isArray(v) ? v.map(record) : [];
  };
  for (const field of ['containers', 'initContainers']) {
    const now = list(pod, field);
    const before = list(old, field);
    if (now.length !== before.length) return true;
    if (now.some((c, i) => c.image !== before[i]?.image)) return true;
  }
  const before = list(old, 'ephemeralContainers');
  return list(pod, 'ephemeralContainers').some((c) => {
    const match = before.find((o) => o.name === c.name);
    return match === undefined || match.image !== c.image;
  });
}
