// The Pod Security Standards checks (baseline and restricted), each with its policy versions, reasons and details worded as k8s.io/pod-security-admission words them.
import { isRecord } from './types.js';

type Json = Record<string, unknown>;

/** What one check says about a pod: allowed, or the reason (and detail) it is forbidden. */
export interface CheckResult {
  allowed: boolean;
  reason?: string;
  detail?: string;
}

export type CheckFn = (meta: Json, spec: Json) => CheckResult;

/** A policy version: minor of 1.x (`latest` is resolved by the caller). */
export type MinorVersion = number;

export interface VersionedCheck {
  minimumVersion: MinorVersion;
  check: CheckFn;
  /** Baseline checks this restricted check replaces from this version on. */
  overrides?: string[];
}

export interface PodSecurityCheck {
  id: string;
  level: 'baseline' | 'restricted';
  versions: VersionedCheck[];
}

const ALLOWED: CheckResult = { allowed: true };

function record(v: unknown): Json | undefined {
  return isRecord(v) ? v : undefined;
}

function list(v: unknown): Json[] {
  return Array.isArray(v) ? v.filter(isRecord) : [];
}

function name(c: Json): string {
  return typeof c.name === 'string' ? c.name : '';
}

/** Init containers, containers and ephemeral containers, in that order (the plugin's visitContainers). */
function containers(spec: Json): Json[] {
  return [...list(spec.initContainers), ...list(spec.containers), ...list(spec.ephemeralContainers)];
}

function securityContext(c: Json): Json | undefined {
  return record(c.securityContext);
}

function podSecurityContext(spec: Json): Json | undefined {
  return record(spec.securityContext);
}

function joinQuote(items: string[]): string {
  return items.length === 0 ? '' : `"${items.join('", "')}"`;
}

function pluralize(singular: string, plural: string, count: number): string {
  return count === 1 ? singular : plural;
}

function containersPhrase(names: string[]): string {
  return `${pluralize('container', 'containers', names.length)} ${joinQuote(names)}`;
}

/** Go's sets.List(): unique and sorted. */
function sortedSet(values: Iterable<string>): string[] {
  return [...new Set(values)].sort();
}

function isWindows(spec: Json): boolean {
  return record(spec.os)?.name === 'windows';
}

function inUserNamespace(spec: Json): boolean {
  return spec.hostUsers === false;
}

const exceptWindows = (check: CheckFn): CheckFn => (meta, spec) => (isWindows(spec) ? ALLOWED : check(meta, spec));
const exceptUserNamespace = (check: CheckFn): CheckFn => (meta, spec) => (inUserNamespace(spec) ? ALLOWED : check(meta, spec));

function allowPrivilegeEscalation(_meta: Json, spec: Json): CheckResult {
  const bad = containers(spec).filter((c) => securityContext(c)?.allowPrivilegeEscalation !== false).map(name);
  if (bad.length === 0) return ALLOWED;
  return { allowed: false, reason: 'allowPrivilegeEscalation != false', detail: `${containersPhrase(bad)} must set securityContext.allowPrivilegeEscalation=false` };
}

const APPARMOR_ANNOTATION_PREFIX = 'container.apparmor.security.beta.kubernetes.io/';

function appArmorProfile(meta: Json, spec: Json): CheckResult {
  const allowedType = (t: unknown): boolean => t === 'RuntimeDefault' || t === 'Localhost';
  const setters: string[] = [];
  const badValues = new Set<string>();
  const podProfile = record(podSecurityContext(spec)?.appArmorProfile);
  if (podProfile !== undefined && !allowedType(podProfile.type)) {
    setters.push('pod');
    badValues.add(String(podProfile.type ?? ''));
  }
  const bad: string[] = [];
  for (const c of containers(spec)) {
    const profile = record(securityContext(c)?.appArmorProfile);
    if (profile !== undefined && !allowedType(profile.type)) {
      bad.push(name(c));
      badValues.add(String(profile.type ?? ''));
    }
  }
  if (bad.length > 0) setters.push(containersPhrase(bad));
  const annotations = record(meta.annotations) ?? {};
  const forbiddenAnnotations = Object.entries(annotations)
    .filter(([k, v]) => k.startsWith(APPARMOR_ANNOTATION_PREFIX) && !(v === '' || v === 'runtime/default' || String(v).startsWith('localhost/')))
    .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
    .sort();
  const values = sortedSet(badValues);
  if (forbiddenAnnotations.length > 0) {
    values.push(...forbiddenAnnotations);
    setters.push(pluralize('annotation', 'annotations', forbiddenAnnotations.length));
  }
  if (setters.length === 0) return ALLOWED;
  return {
    allowed: false,
    reason: pluralize('forbidden AppArmor profile', 'forbidden AppArmor profiles', values.length),
    detail: `${setters.join(' and ')} must not set AppArmor profile type to ${joinQuote(values)}`,
  };
}

const BASELINE_CAPABILITIES = new Set(['AUDIT_WRITE', 'CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'FSETID', 'KILL', 'MKNOD', 'NET_BIND_SERVICE', 'SETFCAP', 'SETGID', 'SETPCAP', 'SETUID', 'SYS_CHROOT']);

function capabilitiesOf(c: Json): { add: string[]; drop: string[] } | undefined {
  const caps = record(securityContext(c)?.capabilities);
  if (caps === undefined) return undefined;
  const strings = (v: unknown): string[] => (Array.isArray(v) ? v.map(String) : []);
  return { add: strings(caps.add), drop: strings(caps.drop) };
}

function capabilitiesBaseline(_meta: Json, spec: Json): CheckResult {
  const bad: string[] = [];
  const forbidden = new Set<string>();
  for (const c of containers(spec)) {
    const extra = (capabilitiesOf(c)?.add ?? []).filter((cap) => !BASELINE_CAPABILITIES.has(cap));
    if (extra.length === 0) continue;
    bad.push(name(c));
    for (const cap of extra) forbidden.add(cap);
  }
  if (bad.length === 0) return ALLOWED;
  return { allowed: false, reason: 'non-default capabilities', detail: `${containersPhrase(bad)} must not include ${joinQuote(sortedSet(forbidden))} in securityContext.capabilities.add` };
}

function capabilitiesRestricted(_meta: Json, spec: Json): CheckResult {
  const missingDropAll: string[] = [];
  const adding: string[] = [];
  const forbidden = new Set<string>();
  for (const c of containers(spec)) {
    const caps = capabilitiesOf(c);
    if (caps === undefined) {
      missingDropAll.push(name(c));
      continue;
    }
    if (!caps.drop.includes('ALL')) missingDropAll.push(name(c));
    const extra = caps.add.filter((cap) => cap !== 'NET_BIND_SERVICE');
    if (extra.length > 0) {
      adding.push(name(c));
      for (const cap of extra) forbidden.add(cap);
    }
  }
  const details: string[] = [];
  if (missingDropAll.length > 0) details.push(`${containersPhrase(missingDropAll)} must set securityContext.capabilities.drop=["ALL"]`);
  if (adding.length > 0) details.push(`${containersPhrase(adding)} must not include ${joinQuote(sortedSet(forbidden))} in securityContext.capabilities.add`);
  if (details.length === 0) return ALLOWED;
  return { allowed: false, reason: 'unrestricted capabilities', detail: details.join('; ') };
}

function hostNamespaces(_meta: Json, spec: Json): CheckResult {
  const shared = (['hostNetwork', 'hostPID', 'hostIPC'] as const).filter((k) => spec[k] === true).map((k) => `${k}=true`);
  return shared.length === 0 ? ALLOWED : { allowed: false, reason: 'host namespaces', detail: shared.join(', ') };
}

function hostPathVolumes(_meta: Json, spec: Json): CheckResult {
  const bad = list(spec.volumes).filter((v) => v.hostPath !== undefined && v.hostPath !== null).map(name);
  if (bad.length === 0) return ALLOWED;
  return { allowed: false, reason: 'hostPath volumes', detail: `${pluralize('volume', 'volumes', bad.length)} ${joinQuote(bad)}` };
}

function hostPorts(_meta: Json, spec: Json): CheckResult {
  const bad: string[] = [];
  const ports = new Set<string>();
  for (const c of containers(spec)) {
    const used = list(c.ports).map((p) => Number(p.hostPort ?? 0)).filter((p) => p !== 0);
    if (used.length === 0) continue;
    bad.push(name(c));
    for (const p of used) ports.add(String(p));
  }
  if (bad.length === 0) return ALLOWED;
  const sorted = sortedSet(ports);
  return {
    allowed: false,
    reason: 'hostPort',
    detail: `${containersPhrase(bad)} ${pluralize('uses', 'use', bad.length)} ${pluralize('hostPort', 'hostPorts', sorted.length)} ${sorted.join(', ')}`,
  };
}

function hostProbesAndHostLifecycle(_meta: Json, spec: Json): CheckResult {
  const bad = new Set<string>();
  const hosts = new Set<string>();
  const hostsOf = (handler: unknown): string[] => {
    const h = record(handler);
    if (h === undefined) return [];
    return [record(h.httpGet)?.host, record(h.tcpSocket)?.host].filter((x): x is string => typeof x === 'string' && x !== '');
  };
  for (const c of containers(spec)) {
    const lifecycle = record(c.lifecycle) ?? {};
    for (const handler of [c.livenessProbe, c.readinessProbe, c.startupProbe, lifecycle.postStart, lifecycle.preStop]) {
      const found = hostsOf(handler);
      if (found.length === 0) continue;
      bad.add(name(c));
      for (const h of found) hosts.add(h);
    }
  }
  if (bad.size === 0) return ALLOWED;
  const names = sortedSet(bad);
  return {
    allowed: false,
    reason: 'probe or lifecycle host',
    detail: `${containersPhrase(names)} ${pluralize('uses', 'use', names.length)} ${pluralize('probe or lifecycle host', 'probe or lifecycle hosts', hosts.size)} ${joinQuote(sortedSet(hosts))}`,
  };
}

function privileged(_meta: Json, spec: Json): CheckResult {
  const bad = containers(spec).filter((c) => securityContext(c)?.privileged === true).map(name);
  if (bad.length === 0) return ALLOWED;
  return { allowed: false, reason: 'privileged', detail: `${containersPhrase(bad)} must not set securityContext.privileged=true` };
}

function procMount(_meta: Json, spec: Json): CheckResult {
  const bad: string[] = [];
  const types = new Set<string>();
  for (const c of containers(spec)) {
    const mount = securityContext(c)?.procMount;
    if (mount === undefined || mount === null || mount === 'Default') continue;
    bad.push(name(c));
    types.add(String(mount));
  }
  if (bad.length === 0) return ALLOWED;
  return { allowed: false, reason: 'procMount', detail: `${containersPhrase(bad)} must not set securityContext.procMount to ${joinQuote(sortedSet(types))}` };
}

function restrictedVolumes(_meta: Json, spec: Json): CheckResult {
  const allowedSources = ['configMap', 'csi', 'downwardAPI', 'emptyDir', 'ephemeral', 'image', 'persistentVolumeClaim', 'projected', 'secret'];
  const known = ['hostPath', 'gcePersistentDisk', 'awsElasticBlockStore', 'gitRepo', 'nfs', 'iscsi', 'glusterfs', 'rbd', 'flexVolume', 'cinder', 'cephfs', 'flocker', 'fc', 'azureFile', 'vsphereVolume', 'quobyte', 'azureDisk', 'photonPersistentDisk', 'portworxVolume', 'scaleIO', 'storageos'];
  const set = (v: Json, k: string): boolean => v[k] !== undefined && v[k] !== null;
  const bad: string[] = [];
  const types = new Set<string>();
  for (const v of list(spec.volumes)) {
    if (allowedSources.some((k) => set(v, k))) continue;
    bad.push(name(v));
    types.add(known.find((k) => set(v, k)) ?? 'unknown');
  }
  if (bad.length === 0) return ALLOWED;
  const sorted = sortedSet(types);
  return {
    allowed: false,
    reason: 'restricted volume types',
    detail: `${pluralize('volume', 'volumes', bad.length)} ${joinQuote(bad)} ${pluralize('uses', 'use', bad.length)} ${pluralize('restricted volume type', 'restricted volume types', sorted.length)} ${joinQuote(sorted)}`,
  };
}

function runAsNonRoot(_meta: Json, spec: Json): CheckResult {
  const setters: string[] = [];
  let podNonRoot = false;
  const podValue = podSecurityContext(spec)?.runAsNonRoot;
  if (typeof podValue === 'boolean') {
    if (!podValue) setters.push('pod');
    else podNonRoot = true;
  }
  const explicit: string[] = [];
  const implicit: string[] = [];
  for (const c of containers(spec)) {
    const v = securityContext(c)?.runAsNonRoot;
    if (typeof v === 'boolean') {
      if (!v) explicit.push(name(c));
    } else if (!podNonRoot) implicit.push(name(c));
  }
  if (explicit.length > 0) setters.push(containersPhrase(explicit));
  if (setters.length > 0) return { allowed: false, reason: 'runAsNonRoot != true', detail: `${setters.join(' and ')} must not set securityContext.runAsNonRoot=false` };
  if (implicit.length > 0) return { allowed: false, reason: 'runAsNonRoot != true', detail: `pod or ${containersPhrase(implicit)} must set securityContext.runAsNonRoot=true` };
  return ALLOWED;
}

function runAsUser(_meta: Json, spec: Json): CheckResult {
  const setters: string[] = [];
  if (podSecurityContext(spec)?.runAsUser === 0) setters.push('pod');
  const bad = containers(spec).filter((c) => securityContext(c)?.runAsUser === 0).map(name);
  if (bad.length > 0) setters.push(containersPhrase(bad));
  if (setters.length === 0) return ALLOWED;
  return { allowed: false, reason: 'runAsUser=0', detail: `${setters.join(' and ')} must not set runAsUser=0` };
}

function seLinuxOptions(allowedTypes: Set<string>): CheckFn {
  return (_meta, spec) => {
    const setters: string[] = [];
    const badTypes = new Set<string>();
    let setUser = false;
    let setRole = false;
    const valid = (opts: Json): boolean => {
      let ok = true;
      const type = typeof opts.type === 'string' ? opts.type : '';
      if (!allowedTypes.has(type)) {
        ok = false;
        badTypes.add(type);
      }
      if (typeof opts.user === 'string' && opts.user !== '') {
        ok = false;
        setUser = true;
      }
      if (typeof opts.role === 'string' && opts.role !== '') {
        ok = false;
        setRole = true;
      }
      return ok;
    };
    const podOpts = record(podSecurityContext(spec)?.seLinuxOptions);
    if (podOpts !== undefined && !valid(podOpts)) setters.push('pod');
    const bad = containers(spec).filter((c) => {
      const opts = record(securityContext(c)?.seLinuxOptions);
      return opts !== undefined && !valid(opts);
    }).map(name);
    if (bad.length > 0) setters.push(containersPhrase(bad));
    if (setters.length === 0) return ALLOWED;
    const data: string[] = [];
    if (badTypes.size > 0) data.push(`${pluralize('type', 'types', badTypes.size)} ${joinQuote(sortedSet(badTypes))}`);
    if (setUser) data.push('user may not be set');
    if (setRole) data.push('role may not be set');
    return { allowed: false, reason: 'seLinuxOptions', detail: `${setters.join(' and ')} set forbidden securityContext.seLinuxOptions: ${data.join('; ')}` };
  };
}

const SECCOMP_POD_ANNOTATION = 'seccomp.security.alpha.kubernetes.io/pod';
const SECCOMP_CONTAINER_ANNOTATION_PREFIX = 'container.seccomp.security.alpha.kubernetes.io/';

function validSeccompType(t: unknown): boolean {
  return t === 'RuntimeDefault' || t === 'Localhost';
}

function seccompBaselineAnnotations(meta: Json, spec: Json): CheckResult {
  const annotations = record(meta.annotations) ?? {};
  const validValue = (v: unknown): boolean => v === 'runtime/default' || v === 'docker/default' || String(v).startsWith('localhost/');
  const forbidden = new Set<string>();
  const pod = annotations[SECCOMP_POD_ANNOTATION];
  if (pod !== undefined && !validValue(pod)) forbidden.add(`${SECCOMP_POD_ANNOTATION}=${JSON.stringify(pod)}`);
  for (const c of containers(spec)) {
    const key = SECCOMP_CONTAINER_ANNOTATION_PREFIX + name(c);
    const v = annotations[key];
    if (v !== undefined && !validValue(v)) forbidden.add(`${key}=${JSON.stringify(v)}`);
  }
  if (forbidden.size === 0) return ALLOWED;
  return { allowed: false, reason: 'seccompProfile', detail: `forbidden ${pluralize('annotation', 'annotations', forbidden.size)} ${sortedSet(forbidden).join(', ')}` };
}

/** The seccomp check on fields; `required` is the restricted form (every container covered by a valid profile). */
function seccompProfile(required: boolean): CheckFn {
  return (_meta, spec) => {
    const setters: string[] = [];
    const badValues = new Set<string>();
    let podSet = false;
    const podProfile = record(podSecurityContext(spec)?.seccompProfile);
    if (podProfile !== undefined) {
      if (!validSeccompType(podProfile.type)) {
        setters.push('pod');
        badValues.add(String(podProfile.type ?? ''));
      } else podSet = true;
    }
    const explicit: string[] = [];
    const implicit: string[] = [];
    for (const c of containers(spec)) {
      const profile = record(securityContext(c)?.seccompProfile);
      if (profile !== undefined) {
        if (!validSeccompType(profile.type)) {
          explicit.push(name(c));
          badValues.add(String(profile.type ?? ''));
        }
      } else if (!podSet) implicit.push(name(c));
    }
    if (explicit.length > 0) setters.push(containersPhrase(explicit));
    if (setters.length > 0) {
      return { allowed: false, reason: 'seccompProfile', detail: `${setters.join(' and ')} must not set securityContext.seccompProfile.type to ${joinQuote(sortedSet(badValues))}` };
    }
    if (required && implicit.length > 0) {
      return { allowed: false, reason: 'seccompProfile', detail: `pod or ${containersPhrase(implicit)} must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"` };
    }
    return ALLOWED;
  };
}

const SYSCTLS_1_0 = ['kernel.shm_rmid_forced', 'net.ipv4.ip_local_port_range', 'net.ipv4.tcp_syncookies', 'net.ipv4.ping_group_range', 'net.ipv4.ip_unprivileged_port_start'];
const SYSCTLS_1_27 = [...SYSCTLS_1_0, 'net.ipv4.ip_local_reserved_ports'];
const SYSCTLS_1_29 = [...SYSCTLS_1_27, 'net.ipv4.tcp_keepalive_time', 'net.ipv4.tcp_fin_timeout', 'net.ipv4.tcp_keepalive_intvl', 'net.ipv4.tcp_keepalive_probes'];
const SYSCTLS_1_32 = [...SYSCTLS_1_29, 'net.ipv4.tcp_rmem', 'net.ipv4.tcp_wmem'];

function sysctls(allowed: string[]): CheckFn {
  const set = new Set(allowed);
  return (_meta, spec) => {
    const forbidden = list(podSecurityContext(spec)?.sysctls).map(name).filter((n) => !set.has(n));
    return forbidden.length === 0 ? ALLOWED : { allowed: false, reason: 'forbidden sysctls', detail: forbidden.join(', ') };
  };
}

function windowsHostProcess(_meta: Json, spec: Json): CheckResult {
  const hostProcess = (ctx: Json | undefined): boolean => record(ctx?.windowsOptions)?.hostProcess === true;
  const setters: string[] = [];
  if (hostProcess(podSecurityContext(spec))) setters.push('pod');
  const bad = containers(spec).filter((c) => hostProcess(securityContext(c))).map(name);
  if (bad.length > 0) setters.push(containersPhrase(bad));
  if (setters.length === 0) return ALLOWED;
  return { allowed: false, reason: 'hostProcess', detail: `${setters.join(' and ')} must not set securityContext.windowsOptions.hostProcess=true` };
}

/**
 * Every check of the Pod Security Standards up to policy version 1.35 (the emulated server's version), with the
 * versions at which each changed. Ordered as the plugin orders them: baseline ids sorted, then restricted ids sorted.
 */
export const POD_SECURITY_CHECKS: PodSecurityCheck[] = [
  { id: 'appArmorProfile', level: 'baseline', versions: [{ minimumVersion: 0, check: appArmorProfile }] },
  { id: 'capabilities_baseline', level: 'baseline', versions: [{ minimumVersion: 0, check: capabilitiesBaseline }] },
  { id: 'hostNamespaces', level: 'baseline', versions: [{ minimumVersion: 0, check: hostNamespaces }] },
  { id: 'hostPathVolumes', level: 'baseline', versions: [{ minimumVersion: 0, check: hostPathVolumes }] },
  { id: 'hostPorts', level: 'baseline', versions: [{ minimumVersion: 0, check: hostPorts }] },
  { id: 'hostProbesAndHostLifecycle', level: 'baseline', versions: [{ minimumVersion: 34, check: hostProbesAndHostLifecycle }] },
  { id: 'privileged', level: 'baseline', versions: [{ minimumVersion: 0, check: privileged }] },
  { id: 'procMount', level: 'baseline', versions: [{ minimumVersion: 0, check: procMount }, { minimumVersion: 35, check: exceptUserNamespace(procMount) }] },
  {
    id: 'seLinuxOptions', level: 'baseline', versions: [
      { minimumVersion: 0, check: seLinuxOptions(new Set(['', 'container_t', 'container_init_t', 'container_kvm_t'])) },
      { minimumVersion: 31, check: seLinuxOptions(new Set(['', 'container_t', 'container_init_t', 'container_kvm_t', 'container_engine_t'])) },
    ],
  },
  { id: 'seccompProfile_baseline', level: 'baseline', versions: [{ minimumVersion: 0, check: seccompBaselineAnnotations }, { minimumVersion: 19, check: seccompProfile(false) }] },
  {
    id: 'sysctls', level: 'baseline', versions: [
      { minimumVersion: 0, check: sysctls(SYSCTLS_1_0) }, { minimumVersion: 27, check: sysctls(SYSCTLS_1_27) },
      { minimumVersion: 29, check: sysctls(SYSCTLS_1_29) }, { minimumVersion: 32, check: sysctls(SYSCTLS_1_32) },
    ],
  },
  { id: 'windowsHostProcess', level: 'baseline', versions: [{ minimumVersion: 0, check: windowsHostProcess }] },
  { id: 'allowPrivilegeEscalation', level: 'restricted', versions: [{ minimumVersion: 8, check: allowPrivilegeEscalation }, { minimumVersion: 25, check: exceptWindows(allowPrivilegeEscalation) }] },
  {
    id: 'capabilities_restricted', level: 'restricted', versions: [
      { minimumVersion: 22, check: capabilitiesRestricted, overrides: ['capabilities_baseline'] },
      { minimumVersion: 25, check: exceptWindows(capabilitiesRestricted), overrides: ['capabilities_baseline'] },
    ],
  },
  { id: 'procMount_restricted', level: 'restricted', versions: [{ minimumVersion: 35, check: procMount, overrides: ['procMount'] }] },
  { id: 'restrictedVolumes', level: 'restricted', versions: [{ minimumVersion: 0, check: restrictedVolumes, overrides: ['hostPathVolumes'] }] },
  { id: 'runAsNonRoot', level: 'restricted', versions: [{ minimumVersion: 0, check: runAsNonRoot }, { minimumVersion: 35, check: exceptUserNamespace(runAsNonRoot) }] },
  { id: 'runAsUser', level: 'restricted', versions: [{ minimumVersion: 23, check: runAsUser }, { minimumVersion: 35, check: exceptUserNamespace(runAsUser) }] },
  {
    id: 'seccompProfile_restricted', level: 'restricted', versions: [
      { minimumVersion: 19, check: seccompProfile(true), overrides: ['seccompProfile_baseline'] },
      { minimumVersion: 25, check: exceptWindows(seccompProfile(true)), overrides: ['seccompProfile_baseline'] },
    ],
  },
];

/** The newest policy version the checks know: `latest` and any newer `v1.x` evaluate as this one. */
export const NEWEST_POLICY_MINOR = 35;
