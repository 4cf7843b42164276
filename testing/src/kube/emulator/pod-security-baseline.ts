// The baseline checks of the Pod Security Standards, worded as k8s.io/pod-security-admission words them (some restricted checks reuse them).
import { ALLOWED, containers, containersPhrase, joinQuote, list, name, pluralize, podSecurityContext, record, securityContext, sortedSet, type CheckFn, type CheckResult, type Json } from './pod-security-pod-view.js';

const APPARMOR_ANNOTATION_PREFIX = 'container.apparmor.security.beta.kubernetes.io/';

export function appArmorProfile(meta: Json, spec: Json): CheckResult {
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

export function capabilitiesOf(c: Json): { add: string[]; drop: string[] } | undefined {
  const caps = record(securityContext(c)?.capabilities);
  if (caps === undefined) return undefined;
  const strings = (v: unknown): string[] => (Array.isArray(v) ? v.map(String) : []);
  return { add: strings(caps.add), drop: strings(caps.drop) };
}

export function capabilitiesBaseline(_meta: Json, spec: Json): CheckResult {
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

export function hostNamespaces(_meta: Json, spec: Json): CheckResult {
  const shared = (['hostNetwork', 'hostPID', 'hostIPC'] as const).filter((k) => spec[k] === true).map((k) => `${k}=true`);
  return shared.length === 0 ? ALLOWED : { allowed: false, reason: 'host namespaces', detail: shared.join(', ') };
}

export function hostPathVolumes(_meta: Json, spec: Json): CheckResult {
  const bad = list(spec.volumes).filter((v) => v.hostPath !== undefined && v.hostPath !== null).map(name);
  if (bad.length === 0) return ALLOWED;
  return { allowed: false, reason: 'hostPath volumes', detail: `${pluralize('volume', 'volumes', bad.length)} ${joinQuote(bad)}` };
}

export function hostPorts(_meta: Json, spec: Json): CheckResult {
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

export function hostProbesAndHostLifecycle(_meta: Json, spec: Json): CheckResult {
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

export function privileged(_meta: Json, spec: Json): CheckResult {
  const bad = containers(spec).filter((c) => securityContext(c)?.privileged === true).map(name);
  if (bad.length === 0) return ALLOWED;
  return { allowed: false, reason: 'privileged', detail: `${containersPhrase(bad)} must not set securityContext.privileged=true` };
}

export function procMount(_meta: Json, spec: Json): CheckResult {
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

export function seLinuxOptions(allowedTypes: Set<string>): CheckFn {
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

export function validSeccompType(t: unknown): boolean {
  return t === 'RuntimeDefault' || t === 'Localhost';
}

export function seccompBaselineAnnotations(meta: Json, spec: Json): CheckResult {
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
export function seccompProfile(required: boolean): CheckFn {
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

export const SYSCTLS_1_0 = ['kernel.shm_rmid_forced', 'net.ipv4.ip_local_port_range', 'net.ipv4.tcp_syncookies', 'net.ipv4.ping_group_range', 'net.ipv4.ip_unprivileged_port_start'];
export const SYSCTLS_1_27 = [...SYSCTLS_1_0, 'net.ipv4.ip_local_reserved_ports'];
export const SYSCTLS_1_29 = [...SYSCTLS_1_27, 'net.ipv4.tcp_keepalive_time', 'net.ipv4.tcp_fin_timeout', 'net.ipv4.tcp_keepalive_intvl', 'net.ipv4.tcp_keepalive_probes'];
export const SYSCTLS_1_32 = [...SYSCTLS_1_29, 'net.ipv4.tcp_rmem', 'net.ipv4.tcp_wmem'];

export function sysctls(allowed: string[]): CheckFn {
  const set = new Set(allowed);
  return (_meta, spec) => {
    const forbidden = list(podSecurityContext(spec)?.sysctls).map(name).filter((n) => !set.has(n));
    return forbidden.length === 0 ? ALLOWED : { allowed: false, reason: 'forbidden sysctls', detail: forbidden.join(', ') };
  };
}

export function windowsHostProcess(_meta: Json, spec: Json): CheckResult {
  const hostProcess = (ctx: Json | undefined): boolean => record(ctx?.windowsOptions)?.hostProcess === true;
  const setters: string[] = [];
  if (hostProcess(podSecurityContext(spec))) setters.push('pod');
  const bad = containers(spec).filter((c) => hostProcess(securityContext(c))).map(name);
  if (bad.length > 0) setters.push(containersPhrase(bad));
  if (setters.length === 0) return ALLOWED;
  return { allowed: false, reason: 'hostProcess', detail: `${setters.join(' and ')} must not set securityContext.windowsOptions.hostProcess=true` };
}

