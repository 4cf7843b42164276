// Pod Security levels and versions: a namespace's pod-security.kubernetes.io labels read into the policy to enforce, warn and audit, and a pod evaluated against one level.
import { NEWEST_POLICY_MINOR, POD_SECURITY_CHECKS, type CheckFn, type CheckResult } from './pod-security-checks.js';
import type { StatusCause } from './status-errors.js';
import { isRecord } from './types.js';

export type Level = 'privileged' | 'baseline' | 'restricted';

/** A level at a policy version (`latest` or a 1.x minor). */
export interface LevelVersion {
  level: Level;
  version: 'latest' | number;
}

export interface NamespacePolicy {
  enforce: LevelVersion;
  audit: LevelVersion;
  warn: LevelVersion;
}

export const LABEL_PREFIX = 'pod-security.kubernetes.io/';

/** The default configuration of the built-in plugin: everything privileged at latest, no exemptions. */
const DEFAULT: LevelVersion = { level: 'privileged', version: 'latest' };

const LEVELS: Level[] = ['privileged', 'baseline', 'restricted'];

export function levelVersionString(lv: LevelVersion): string {
  return `${lv.level}:${lv.version === 'latest' ? 'latest' : `v1.${lv.version}`}`;
}

function parseLevel(value: string): Level | undefined {
  return (LEVELS as string[]).includes(value) ? (value as Level) : undefined;
}

function parseVersion(value: string): LevelVersion['version'] | undefined {
  if (value === 'latest') return 'latest';
  const m = /^v1\.([0-9]|[1-9][0-9]*)$/.exec(value);
  return m === null ? undefined : Number(m[1]);
}

/** -1, 0 or 1: how strict `a` is compared with `b`. */
export function compareLevels(a: Level, b: Level): number {
  return Math.sign(LEVELS.indexOf(a) - LEVELS.indexOf(b));
}

/**
 * The policy a namespace's labels ask for, with the causes of labels that do not parse (as api.PolicyToEvaluate:
 * an unparsable enforce level enforces restricted, unparsable audit or warn levels fall back to privileged, and
 * warn follows an explicit stricter enforce level unless set itself).
 */
export function policyFromLabels(labels: Record<string, string> | undefined): { policy: NamespacePolicy; causes: StatusCause[] } {
  const policy: NamespacePolicy = { enforce: { ...DEFAULT }, audit: { ...DEFAULT }, warn: { ...DEFAULT } };
  const causes: StatusCause[] = [];
  if (labels === undefined) return { policy, causes };
  const invalid = (label: string, value: string, detail: string): void => {
    causes.push({ reason: 'FieldValueInvalid', field: `metadata.labels[${LABEL_PREFIX}${label}]`, message: `Invalid value: ${JSON.stringify(value)}: ${detail}` });
  };
  const levelDetail = `must be one of ${LEVELS.join(', ')}`;
  const versionDetail = 'must be "latest" or "v1.x"';
  let enforceLevelSet = false;
  let warnLevelSet = false;
  let warnVersionSet = false;
  for (const mode of ['enforce', 'audit', 'warn'] as const) {
    const level = labels[`${LABEL_PREFIX}${mode}`];
    if (level !== undefined) {
      const parsed = parseLevel(level);
      if (parsed === undefined) invalid(mode, level, levelDetail);
      policy[mode].level = parsed ?? (mode === 'enforce' ? 'restricted' : 'privileged');
      if (mode === 'enforce') enforceLevelSet = parsed !== undefined;
      if (mode === 'warn') warnLevelSet = true;
    }
    const version = labels[`${LABEL_PREFIX}${mode}-version`];
    if (version !== undefined) {
      const parsed = parseVersion(version);
      if (parsed === undefined) invalid(`${mode}-version`, version, versionDetail);
      policy[mode].version = parsed ?? 'latest';
      if (mode === 'warn') warnVersionSet = true;
    }
  }
  if (!warnLevelSet && enforceLevelSet && compareLevels(policy.enforce.level, policy.warn.level) > 0) {
    policy.warn.level = policy.enforce.level;
    if (!warnVersionSet) policy.warn.version = policy.enforce.version;
  }
  return { policy, causes };
}

export function sameLevelVersion(a: LevelVersion, b: LevelVersion): boolean {
  return a.level === b.level && a.version === b.version;
}

function checksAt(lv: LevelVersion): CheckFn[] {
  const version = lv.version === 'latest' || lv.version > NEWEST_POLICY_MINOR ? NEWEST_POLICY_MINOR : lv.version;
  const applicable = (c: (typeof POD_SECURITY_CHECKS)[number]) => [...c.versions].reverse().find((v) => v.minimumVersion <= version);
  const overridden = new Set<string>();
  if (lv.level === 'restricted') {
    for (const c of POD_SECURITY_CHECKS) if (c.level === 'restricted') for (const o of applicable(c)?.overrides ?? []) overridden.add(o);
  }
  const fns: CheckFn[] = [];
  for (const c of POD_SECURITY_CHECKS) {
    if (c.level === 'restricted' && lv.level !== 'restricted') continue;
    if (overridden.has(c.id)) continue;
    const v = applicable(c);
    if (v !== undefined) fns.push(v.check);
  }
  return fns;
}

/** The checks a pod fails at a level, as "reason (detail), reason, ..." or undefined when it passes. */
export function evaluatePod(lv: LevelVersion, podMeta: unknown, podSpec: unknown): { reasons: string; detail: string } | undefined {
  if (lv.level === 'privileged') return undefined;
  const meta = isRecord(podMeta) ? podMeta : {};
  const spec = isRecord(podSpec) ? podSpec : {};
  const failed: CheckResult[] = checksAt(lv).map((check) => check(meta, spec)).filter((r) => !r.allowed);
  if (failed.length === 0) return undefined;
  const reason = (r: CheckResult): string => r.reason ?? 'unknown forbidden reason';
  return {
    reasons: failed.map(reason).join(', '),
    detail: failed.map((r) => (r.detail ? `${reason(r)} (${r.detail})` : reason(r))).join(', '),
  };
}
