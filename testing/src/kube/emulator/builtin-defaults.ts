// Defaults and checks the real server's strategies apply to built-in kinds on create and update (the parts clients notice).
import type { StatusCause } from './status-errors.js';
import { isRecord, type KubeObject, type ResourceType } from './types.js';

export interface BuiltinContext {
  /** Next free ClusterIP for a Service. */
  allocateClusterIp(): string;
}

type Hook = (object: KubeObject, existing: KubeObject | undefined, ctx: BuiltinContext) => StatusCause[];

function record(parent: Record<string, unknown>, key: string): Record<string, unknown> {
  const v = parent[key];
  if (isRecord(v)) return v;
  const created: Record<string, unknown> = {};
  parent[key] = created;
  return created;
}

function setDefault(target: Record<string, unknown>, key: string, value: unknown): void {
  if (target[key] === undefined) target[key] = value;
}

function defaultProbe(probe: Record<string, unknown>): void {
  setDefault(probe, 'timeoutSeconds', 1);
  setDefault(probe, 'periodSeconds', 10);
  setDefault(probe, 'successThreshold', 1);
  setDefault(probe, 'failureThreshold', 3);
  if (isRecord(probe.httpGet)) setDefault(probe.httpGet, 'scheme', 'HTTP');
}

/** RBAC subjects: apiGroup "" for ServiceAccounts, rbac.authorization.k8s.io for Users and Groups (SetDefaults_Subject). */
function defaultSubjects(o: KubeObject): void {
  if (!Array.isArray(o.subjects)) return;
  for (const subject of o.subjects) {
    if (!isRecord(subject) || (subject.apiGroup !== undefined && subject.apiGroup !== '')) continue;
    if (subject.kind === 'User' || subject.kind === 'Group') subject.apiGroup = 'rbac.authorization.k8s.io';
    else if (subject.kind === 'ServiceAccount') subject.apiGroup = '';
  }
}

function defaultPodSpec(spec: Record<string, unknown>): void {
  setDefault(spec, 'restartPolicy', 'Always');
  setDefault(spec, 'dnsPolicy', 'ClusterFirst');
  setDefault(spec, 'schedulerName', 'default-scheduler');
  setDefault(spec, 'terminationGracePeriodSeconds', 30);
  setDefault(spec, 'securityContext', {});
  setDefault(spec, 'enableServiceLinks', true);
  if (spec.serviceAccountName === undefined && spec.serviceAccount !== undefined) spec.serviceAccountName = spec.serviceAccount;
  for (const list of ['containers', 'initContainers']) {
    const containers = spec[list];
    if (!Array.isArray(containers)) continue;
    for (const c of containers) {
      if (!isRecord(c)) continue;
      setDefault(c, 'terminationMessagePath', '/dev/termination-log');
      setDefault(c, 'terminationMessagePolicy', 'File');
      const image = typeof c.image === 'string' ? c.image : '';
      const tagged = /:[^/]+$/.test(image) || image.includes('@');
      setDefault(c, 'imagePullPolicy', !tagged || image.endsWith(':latest') ? 'Always' : 'IfNotPresent');
      setDefault(c, 'resources', {});
      if (Array.isArray(c.ports)) for (const p of c.ports) if (isRecord(p)) setDefault(p, 'protocol', 'TCP');
      for (const probe of ['livenessProbe', 'readinessProbe', 'startupProbe']) if (isRecord(c[probe])) defaultProbe(c[probe]);
      if (Array.isArray(c.env)) {
        for (const e of c.env) {
          const fieldRef = isRecord(e) && isRecord(e.valueFrom) ? e.valueFrom.fieldRef : undefined;
          if (isRecord(fieldRef)) setDefault(fieldRef, 'apiVersion', 'v1');
        }
      }
    }
  }
}

const HOOKS: Record<string, Hook> = {
  '/namespaces': (o, existing) => {
    const labels = (o.metadata.labels ??= {});
    labels['kubernetes.io/metadata.name'] = o.metadata.name as string;
    const spec = record(o, 'spec');
    if (existing === undefined) setDefault(spec, 'finalizers', ['kubernetes']);
    const status = record(o, 'status');
    setDefault(status, 'phase', 'Active');
    return [];
  },
  '/services': (o, existing, ctx) => {
    const spec = record(o, 'spec');
    setDefault(spec, 'type', 'ClusterIP');
    setDefault(spec, 'sessionAffinity', 'None');
    const previousIp = (existing?.spec as Record<string, unknown> | undefined)?.clusterIP;
    if (spec.clusterIP === undefined || spec.clusterIP === '') spec.clusterIP = previousIp ?? ctx.allocateClusterIp();
    if (spec.clusterIP !== 'None') setDefault(spec, 'clusterIPs', [spec.clusterIP]);
    setDefault(spec, 'ipFamilies', ['IPv4']);
    setDefault(spec, 'ipFamilyPolicy', 'SingleStack');
    setDefault(spec, 'internalTrafficPolicy', 'Cluster');
    if (Array.isArray(spec.ports)) {
      for (const p of spec.ports) {
        if (!isRecord(p)) continue;
        setDefault(p, 'protocol', 'TCP');
        setDefault(p, 'targetPort', p.port);
      }
    }
    setDefault(o, 'status', { loadBalancer: {} });
    return [];
  },
  '/pods': (o, existing) => {
    const spec = record(o, 'spec');
    defaultPodSpec(spec);
    if (spec.serviceAccountName === undefined) spec.serviceAccountName = 'default';
    if (existing === undefined) o.status = { phase: 'Pending', qosClass: 'BestEffort' };
    return [];
  },
  '/secrets': (o) => {
    setDefault(o, 'type', 'Opaque');
    if (isRecord(o.stringData)) {
      const data = record(o, 'data');
      for (const [k, v] of Object.entries(o.stringData)) data[k] = Buffer.from(String(v), 'utf8').toString('base64');
      delete o.stringData;
    }
    return [];
  },
  'apps/deployments': (o) => {
    const spec = record(o, 'spec');
    setDefault(spec, 'replicas', 1);
    const strategy = record(spec, 'strategy');
    setDefault(strategy, 'type', 'RollingUpdate');
    if (strategy.type === 'RollingUpdate') {
      const rolling = record(strategy, 'rollingUpdate');
      setDefault(rolling, 'maxUnavailable', '25%');
      setDefault(rolling, 'maxSurge', '25%');
    }
    setDefault(spec, 'revisionHistoryLimit', 10);
    setDefault(spec, 'progressDeadlineSeconds', 600);
    defaultPodSpec(record(record(spec, 'template'), 'spec'));
    return [];
  },
  'apps/statefulsets': (o) => {
    const spec = record(o, 'spec');
    setDefault(spec, 'replicas', 1);
    setDefault(spec, 'podManagementPolicy', 'OrderedReady');
    setDefault(spec, 'updateStrategy', { type: 'RollingUpdate', rollingUpdate: { partition: 0 } });
    setDefault(spec, 'revisionHistoryLimit', 10);
    setDefault(spec, 'persistentVolumeClaimRetentionPolicy', { whenDeleted: 'Retain', whenScaled: 'Retain' });
    defaultPodSpec(record(record(spec, 'template'), 'spec'));
    return [];
  },
  'apps/replicasets': (o) => {
    const spec = record(o, 'spec');
    setDefault(spec, 'replicas', 1);
    defaultPodSpec(record(record(spec, 'template'), 'spec'));
    return [];
  },
  'apps/daemonsets': (o) => {
    const spec = record(o, 'spec');
    setDefault(spec, 'updateStrategy', { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } });
    setDefault(spec, 'revisionHistoryLimit', 10);
    defaultPodSpec(record(record(spec, 'template'), 'spec'));
    return [];
  },
  'rbac.authorization.k8s.io/rolebindings': (o) => {
    defaultSubjects(o);
    return [];
  },
  'rbac.authorization.k8s.io/clusterrolebindings': (o) => {
    defaultSubjects(o);
    return [];
  },
  'apiextensions.k8s.io/customresourcedefinitions': (o) => {
    const spec = record(o, 'spec');
    setDefault(spec, 'conversion', { strategy: 'None' });
    return [];
  },
};

/** Applies the kind's defaults to `object` (mutating it) and answers its validation errors. */
export function prepareBuiltin(type: ResourceType, object: KubeObject, existing: KubeObject | undefined, ctx: BuiltinContext): StatusCause[] {
  const hook = HOOKS[type.storageKey];
  return hook === undefined ? [] : hook(object, existing, ctx);
}
