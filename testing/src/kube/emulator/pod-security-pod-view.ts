// How the Pod Security checks read a pod (containers in the plugin's order, security contexts) and word their findings (quoted lists, plurals).
import { isRecord } from './types.js';

export type Json = Record<string, unknown>;


/** What one check says about a pod: allowed, or the reason (and detail) it is forbidden. */
export interface CheckResult {
  allowed: boolean;
  reason?: string;
  detail?: string;
}

export type CheckFn = (meta: Json, spec: Json) => CheckResult;

export const ALLOWED: CheckResult = { allowed: true };

export function record(v: unknown): Json | undefined {
  return isRecord(v) ? v : undefined;
}

export function list(v: unknown): Json[] {
  return Array.isArray(v) ? v.filter(isRecord) : [];
}

export function name(c: Json): string {
  return typeof c.name === 'string' ? c.name : '';
}

/** Init containers, containers and ephemeral containers, in that order (the plugin's visitContainers). */
export function containers(spec: Json): Json[] {
  return [...list(spec.initContainers), ...list(spec.containers), ...list(spec.ephemeralContainers)];
}

export function securityContext(c: Json): Json | undefined {
  return record(c.securityContext);
}

export function podSecurityContext(spec: Json): Json | undefined {
  return record(spec.securityContext);
}

export function joinQuote(items: string[]): string {
  return items.length === 0 ? '' : `"${items.join('", "')}"`;
}

export function pluralize(singular: string, plural: string, count: number): string {
  return count === 1 ? singular : plural;
}

export function containersPhrase(names: string[]): string {
  return `${pluralize('container', 'containers', names.length)} ${joinQuote(names)}`;
}

/** Go's sets.List(): unique and sorted. */
export function sortedSet(values: Iterable<string>): string[] {
  return [...new Set(values)].sort();
}

export function isWindows(spec: Json): boolean {
  return record(spec.os)?.name === 'windows';
}

export function inUserNamespace(spec: Json): boolean {
  return spec.hostUsers === false;
}

export const exceptWindows = (check: CheckFn): CheckFn => (meta, spec) => (isWindows(spec) ? ALLOWED : check(meta, spec));
export const exceptUserNamespace = (check: CheckFn): CheckFn => (meta, spec) => (inUserNamespace(spec) ? ALLOWED : check(meta, spec));
