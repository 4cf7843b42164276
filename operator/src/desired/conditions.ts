// Condition lists: set one condition by type, keeping lastTransitionTime unless the status changes.
import type { Condition } from '@vigil/crds';
import { toApiTime } from '@vigil/kube';

export function setCondition(list: Condition[] | undefined, next: Omit<Condition, 'lastTransitionTime'>, now: number): Condition[] {
  const conditions = [...(list ?? [])];
  const i = conditions.findIndex((c) => c.type === next.type);
  const prev = i >= 0 ? conditions[i] : undefined;
  const lastTransitionTime = prev && prev.status === next.status && prev.lastTransitionTime ? prev.lastTransitionTime : toApiTime(now);
  const merged: Condition = { ...next, lastTransitionTime };
  if (i >= 0) conditions[i] = merged;
  else conditions.push(merged);
  return conditions;
}

export function findCondition(list: Condition[] | undefined, type: string): Condition | undefined {
  return list?.find((c) => c.type === type);
}
