// The API server's validation of built-in kinds (what the OpenAPI schema does not say): metadata for every kind, then each kind's own rules, as 422 causes in the real order.
import { validateConfigMap, validateSecret } from './config-validation.js';
import { CSR_STORAGE_KEY, validateCsr } from './csr-validation.js';
import { validateCoreEvent } from './event-validation.js';
import { validateIngress, validateIngressClass, validateNetworkPolicy } from './ingress-validation.js';
import { validateLease } from './lease-validation.js';
import { validateObjectMetaCreate, validateObjectMetaUpdate } from './object-meta-validation.js';
import { validatePodSpec, validatePodUpdate } from './pod-spec-validation.js';
import { validateClusterRole, validateClusterRoleBinding, validateRole, validateRoleBinding } from './rbac-validation.js';
import { validateService } from './service-validation.js';
import type { StatusCause } from './status-errors.js';
import type { KubeObject, ResourceType } from './types.js';
import { rec } from './validation-common.js';
import {
  validateCronJob, validateDaemonSet, validateDeployment, validateEachNonNegativeQuantity, validateJob, validatePodDisruptionBudget, validatePvcSpec, validateReplicaSet,
  validateStatefulSet,
} from './workload-validation.js';

type Validator = (object: KubeObject, existing: KubeObject | undefined) => StatusCause[];

const VALIDATORS: Record<string, Validator> = {
  '/pods': (o, old) => (old === undefined ? validatePodSpec(o.spec, 'spec') : validatePodUpdate(o, old)),
  '/services': validateService,
  '/configmaps': validateConfigMap,
  '/secrets': validateSecret,
  '/events': (o) => validateCoreEvent(o),
  '/persistentvolumeclaims': (o, old) => (old === undefined ? validatePvcSpec(o.spec, 'spec') : []),
  '/resourcequotas': (o) => validateEachNonNegativeQuantity(rec(o.spec).hard, 'spec.hard'),
  'apps/deployments': validateDeployment,
  'apps/replicasets': validateReplicaSet,
  'apps/statefulsets': validateStatefulSet,
  'apps/daemonsets': validateDaemonSet,
  'batch/jobs': (o) => validateJob(o),
  'batch/cronjobs': (o) => validateCronJob(o),
  'policy/poddisruptionbudgets': (o) => validatePodDisruptionBudget(o),
  'networking.k8s.io/ingresses': (o) => validateIngress(o),
  'networking.k8s.io/ingressclasses': (o) => validateIngressClass(o),
  'networking.k8s.io/networkpolicies': (o) => validateNetworkPolicy(o),
  'coordination.k8s.io/leases': (o) => validateLease(o),
  'rbac.authorization.k8s.io/roles': (o) => validateRole(o),
  'rbac.authorization.k8s.io/clusterroles': (o) => validateClusterRole(o),
  'rbac.authorization.k8s.io/rolebindings': validateRoleBinding,
  'rbac.authorization.k8s.io/clusterrolebindings': validateClusterRoleBinding,
};

/**
 * The validation errors of an object about to be created (`existing` undefined) or to replace `existing`: metadata
 * (every kind, custom ones too), then the built-in kind's own rules. Status writes check metadata only.
 */
export function validateObject(type: ResourceType, object: KubeObject, existing: KubeObject | undefined, subresource: string | undefined): StatusCause[] {
  const meta = existing === undefined ? validateObjectMetaCreate(object, type) : validateObjectMetaUpdate(object, existing);
  // Every write of a CSR, through any of its three paths, is checked whole (ValidateCertificateSigningRequest*Update).
  if (type.storageKey === CSR_STORAGE_KEY) return [...meta, ...validateCsr(object, existing, subresource)];
  if (type.custom || subresource !== undefined) return meta;
  const validator = VALIDATORS[type.storageKey];
  return [...meta, ...(validator === undefined ? [] : validator(object, existing))];
}
