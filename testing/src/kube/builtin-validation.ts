// The API server's validation of built-in kinds (what the OpenAPI schema does not say), per kind; answers the 422 causes in the real order.
import { validateCoreEvent } from './event-validation.js';
import type { StatusCause } from './status-errors.js';
import type { KubeObject, ResourceType } from './types.js';

type Validator = (object: KubeObject, existing: KubeObject | undefined) => StatusCause[];

const VALIDATORS: Record<string, Validator> = {
  '/events': (o) => validateCoreEvent(o),
};

/** The validation errors of a built-in object about to be created (`existing` undefined) or to replace `existing`. */
export function validateBuiltin(type: ResourceType, object: KubeObject, existing: KubeObject | undefined): StatusCause[] {
  if (type.custom) return [];
  const validator = VALIDATORS[type.storageKey];
  return validator === undefined ? [] : validator(object, existing);
}
