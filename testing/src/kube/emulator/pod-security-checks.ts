// The Pod Security Standards: every check with its level, the policy versions at which it changed and the baseline checks it replaces, in the plugin's order.
import {
  appArmorProfile, capabilitiesBaseline, hostNamespaces, hostPathVolumes, hostPorts, hostProbesAndHostLifecycle, privileged, procMount, seccompBaselineAnnotations, seccompProfile,
  seLinuxOptions, sysctls, SYSCTLS_1_0, SYSCTLS_1_27, SYSCTLS_1_29, SYSCTLS_1_32, windowsHostProcess,
} from './pod-security-baseline.js';
import { exceptUserNamespace, exceptWindows, type CheckFn } from './pod-security-pod-view.js';
import { allowPrivilegeEscalation, capabilitiesRestricted, restrictedVolumes, runAsNonRoot, runAsUser } from './pod-security-restricted.js';

export type { CheckFn, CheckResult } from './pod-security-pod-view.js';

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
