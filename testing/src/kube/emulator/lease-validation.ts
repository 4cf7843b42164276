// Lease validation as pkg/apis/coordination/validation: durations above zero, transitions not negative, a strategy only with a preferred holder.
import { forbiddenField, invalidValue } from './field-errors.js';
import type { StatusCause } from './status-errors.js';
import type { KubeObject } from './types.js';
import { present, rec } from './validation-common.js';

export function validateLease(o: KubeObject): StatusCause[] {
  const spec = rec(o.spec);
  const causes: StatusCause[] = [];
  if (typeof spec.leaseDurationSeconds === 'number' && spec.leaseDurationSeconds <= 0) causes.push(invalidValue('spec.leaseDurationSeconds', spec.leaseDurationSeconds, 'must be greater than 0'));
  if (typeof spec.leaseTransitions === 'number' && spec.leaseTransitions < 0) causes.push(invalidValue('spec.leaseTransitions', spec.leaseTransitions, 'must be greater than or equal to 0'));
  if (present(spec.preferredHolder) && !present(spec.strategy)) causes.push(forbiddenField('spec.preferredHolder', 'may only be specified if `strategy` is defined'));
  return causes;
}
