// The restricted checks of the Pod Security Standards, worded as k8s.io/pod-security-admission words them.
import { capabilitiesOf } from './pod-security-baseline.js';
import { ALLOWED, containers, containersPhrase, joinQuote, list, name, pluralize, podSecurityContext, securityContext, sortedSet, type CheckResult, type Json } from './pod-security-pod-view.js';

export function allowPrivilegeEscalation(_meta: Json, spec: Json): CheckResult {
  const bad = containers(spec).filter((c) => securityContext(c)?.allowPrivilegeEscalation !== false).map(name);
  if (bad.length === 0) return ALLOWED;
  return { allowed: false, reason: 'allowPrivilegeEscalation != false', detail: `${containersPhrase(bad)} must set securityContext.allowPrivilegeEscalation=false` };
}

export function capabilitiesRestricted(_meta: Json, spec: Json): CheckResult {
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

export function restrictedVolumes(_meta: Json, spec: Json): CheckResult {
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

export function runAsNonRoot(_meta: Json, spec: Json): CheckResult {
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

export function runAsUser(_meta: Json, spec: Json): CheckResult {
  const setters: string[] = [];
  if (podSecurityContext(spec)?.runAsUser === 0) setters.push('pod');
  const bad = containers(spec).filter((c) => securityContext(c)?.runAsUser === 0).map(name);
  if (bad.length > 0) setters.push(containersPhrase(bad));
  if (setters.length === 0) return ALLOWED;
  return { allowed: false, reason: 'runAsUser=0', detail: `${setters.join(' and ')} must not set runAsUser=0` };
}

