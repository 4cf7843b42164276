// The built-in kinds the emulator serves: group, version, names, scope, subresources and the client-node model of each.
import type { BuiltinSchemas } from './builtin-schemas.js';
import { coreEventFromEventsV1, eventsV1FromCoreEvent } from './event-conversion.js';
import { validateCoreEvent, validateEventsV1Create } from './event-validation.js';
import type { ResourceType, StorageView } from './types.js';

const ALL_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
const CREATE_ONLY = ['create'];

interface BuiltinSpec {
  group: string;
  version: string;
  kind: string;
  plural: string;
  model: string;
  namespaced: boolean;
  shortNames?: string[];
  subresources?: string[];
  fieldSelectors?: string[];
  categories?: string[];
  verbs?: string[];
  hasGeneration?: boolean;
  view?: StorageView;
}

const POD_FIELDS = ['spec.nodeName', 'spec.restartPolicy', 'spec.schedulerName', 'spec.serviceAccountName', 'spec.hostNetwork', 'status.phase', 'status.podIP', 'status.nominatedNodeName'];
const EVENT_FIELDS = ['involvedObject.kind', 'involvedObject.namespace', 'involvedObject.name', 'involvedObject.uid', 'involvedObject.apiVersion', 'involvedObject.resourceVersion', 'involvedObject.fieldPath', 'reason', 'reportingComponent', 'source', 'type'];

const BUILTINS: BuiltinSpec[] = [
  { group: '', version: 'v1', kind: 'Namespace', plural: 'namespaces', model: 'V1Namespace', namespaced: false, shortNames: ['ns'], subresources: ['status', 'finalize'], fieldSelectors: ['status.phase'] },
  { group: '', version: 'v1', kind: 'Node', plural: 'nodes', model: 'V1Node', namespaced: false, shortNames: ['no'], subresources: ['status'], fieldSelectors: ['spec.unschedulable'] },
  { group: '', version: 'v1', kind: 'Pod', plural: 'pods', model: 'V1Pod', namespaced: true, shortNames: ['po'], subresources: ['status'], fieldSelectors: POD_FIELDS, categories: ['all'], hasGeneration: true },
  { group: '', version: 'v1', kind: 'Service', plural: 'services', model: 'V1Service', namespaced: true, shortNames: ['svc'], subresources: ['status'], categories: ['all'] },
  { group: '', version: 'v1', kind: 'Endpoints', plural: 'endpoints', model: 'V1Endpoints', namespaced: true, shortNames: ['ep'] },
  { group: '', version: 'v1', kind: 'ConfigMap', plural: 'configmaps', model: 'V1ConfigMap', namespaced: true, shortNames: ['cm'] },
  { group: '', version: 'v1', kind: 'Secret', plural: 'secrets', model: 'V1Secret', namespaced: true, fieldSelectors: ['type'] },
  { group: '', version: 'v1', kind: 'Event', plural: 'events', model: 'CoreV1Event', namespaced: true, shortNames: ['ev'], fieldSelectors: EVENT_FIELDS },
  { group: '', version: 'v1', kind: 'ServiceAccount', plural: 'serviceaccounts', model: 'V1ServiceAccount', namespaced: true, shortNames: ['sa'], subresources: ['token'] },
  { group: '', version: 'v1', kind: 'PersistentVolumeClaim', plural: 'persistentvolumeclaims', model: 'V1PersistentVolumeClaim', namespaced: true, shortNames: ['pvc'], subresources: ['status'] },
  { group: '', version: 'v1', kind: 'ResourceQuota', plural: 'resourcequotas', model: 'V1ResourceQuota', namespaced: true, shortNames: ['quota'], subresources: ['status'] },
  { group: '', version: 'v1', kind: 'LimitRange', plural: 'limitranges', model: 'V1LimitRange', namespaced: true, shortNames: ['limits'] },
  { group: 'apps', version: 'v1', kind: 'Deployment', plural: 'deployments', model: 'V1Deployment', namespaced: true, shortNames: ['deploy'], subresources: ['status', 'scale'], categories: ['all'], hasGeneration: true },
  { group: 'apps', version: 'v1', kind: 'StatefulSet', plural: 'statefulsets', model: 'V1StatefulSet', namespaced: true, shortNames: ['sts'], subresources: ['status', 'scale'], categories: ['all'], hasGeneration: true },
  { group: 'apps', version: 'v1', kind: 'ReplicaSet', plural: 'replicasets', model: 'V1ReplicaSet', namespaced: true, shortNames: ['rs'], subresources: ['status', 'scale'], categories: ['all'], hasGeneration: true },
  { group: 'apps', version: 'v1', kind: 'DaemonSet', plural: 'daemonsets', model: 'V1DaemonSet', namespaced: true, shortNames: ['ds'], subresources: ['status'], categories: ['all'], hasGeneration: true },
  { group: 'batch', version: 'v1', kind: 'Job', plural: 'jobs', model: 'V1Job', namespaced: true, subresources: ['status'], categories: ['all'], hasGeneration: true },
  { group: 'batch', version: 'v1', kind: 'CronJob', plural: 'cronjobs', model: 'V1CronJob', namespaced: true, shortNames: ['cj'], subresources: ['status'], categories: ['all'], hasGeneration: true },
  { group: 'autoscaling', version: 'v2', kind: 'HorizontalPodAutoscaler', plural: 'horizontalpodautoscalers', model: 'V2HorizontalPodAutoscaler', namespaced: true, shortNames: ['hpa'], subresources: ['status'], categories: ['all'] },
  { group: 'coordination.k8s.io', version: 'v1', kind: 'Lease', plural: 'leases', model: 'V1Lease', namespaced: true },
  { group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'Role', plural: 'roles', model: 'V1Role', namespaced: true },
  { group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'RoleBinding', plural: 'rolebindings', model: 'V1RoleBinding', namespaced: true },
  { group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'ClusterRole', plural: 'clusterroles', model: 'V1ClusterRole', namespaced: false },
  { group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'ClusterRoleBinding', plural: 'clusterrolebindings', model: 'V1ClusterRoleBinding', namespaced: false },
  { group: 'networking.k8s.io', version: 'v1', kind: 'Ingress', plural: 'ingresses', model: 'V1Ingress', namespaced: true, shortNames: ['ing'], subresources: ['status'], hasGeneration: true },
  { group: 'networking.k8s.io', version: 'v1', kind: 'IngressClass', plural: 'ingressclasses', model: 'V1IngressClass', namespaced: false },
  { group: 'networking.k8s.io', version: 'v1', kind: 'NetworkPolicy', plural: 'networkpolicies', model: 'V1NetworkPolicy', namespaced: true, shortNames: ['netpol'], hasGeneration: true },
  { group: 'policy', version: 'v1', kind: 'PodDisruptionBudget', plural: 'poddisruptionbudgets', model: 'V1PodDisruptionBudget', namespaced: true, shortNames: ['pdb'], subresources: ['status'], hasGeneration: true },
  {
    group: 'certificates.k8s.io', version: 'v1', kind: 'CertificateSigningRequest', plural: 'certificatesigningrequests', model: 'V1CertificateSigningRequest', namespaced: false,
    shortNames: ['csr'], subresources: ['status', 'approval'], fieldSelectors: ['spec.signerName'],
  },
  { group: 'apiextensions.k8s.io', version: 'v1', kind: 'CustomResourceDefinition', plural: 'customresourcedefinitions', model: 'V1CustomResourceDefinition', namespaced: false, shortNames: ['crd', 'crds'], subresources: ['status'], hasGeneration: true },
  {
    group: 'events.k8s.io', version: 'v1', kind: 'Event', plural: 'events', model: 'EventsV1Event', namespaced: true, shortNames: ['ev'], fieldSelectors: EVENT_FIELDS,
    view: {
      stored: { group: '', version: 'v1', plural: 'events' }, toStored: coreEventFromEventsV1, fromStored: eventsV1FromCoreEvent,
      validateCreate: (o) => [...validateCoreEvent(o), ...validateEventsV1Create(o)],
    },
  },
  { group: 'authentication.k8s.io', version: 'v1', kind: 'TokenReview', plural: 'tokenreviews', model: 'V1TokenReview', namespaced: false, verbs: CREATE_ONLY },
  { group: 'authentication.k8s.io', version: 'v1', kind: 'SelfSubjectReview', plural: 'selfsubjectreviews', model: 'V1SelfSubjectReview', namespaced: false, verbs: CREATE_ONLY },
  { group: 'authorization.k8s.io', version: 'v1', kind: 'SelfSubjectAccessReview', plural: 'selfsubjectaccessreviews', model: 'V1SelfSubjectAccessReview', namespaced: false, verbs: CREATE_ONLY },
  { group: 'authorization.k8s.io', version: 'v1', kind: 'SelfSubjectRulesReview', plural: 'selfsubjectrulesreviews', model: 'V1SelfSubjectRulesReview', namespaced: false, verbs: CREATE_ONLY },
  { group: 'authorization.k8s.io', version: 'v1', kind: 'SubjectAccessReview', plural: 'subjectaccessreviews', model: 'V1SubjectAccessReview', namespaced: false, verbs: CREATE_ONLY },
];

/** The built-in ResourceTypes, with schemas from `schemas`. */
export function builtinResourceTypes(schemas: BuiltinSchemas): ResourceType[] {
  return BUILTINS.map((b) => ({
    group: b.group,
    version: b.version,
    kind: b.kind,
    listKind: `${b.kind}List`,
    plural: b.plural,
    singular: b.kind.toLowerCase(),
    shortNames: b.shortNames ?? [],
    categories: b.categories ?? [],
    namespaced: b.namespaced,
    verbs: b.verbs ?? ALL_VERBS,
    subresources: b.subresources ?? [],
    schema: schemas.model(b.model),
    custom: false,
    storageKey: `${b.group}/${b.plural}`,
    printerColumns: [],
    fieldSelectors: b.fieldSelectors ?? [],
    hasGeneration: b.hasGeneration ?? false,
    ...(b.view !== undefined ? { view: b.view } : {}),
  }));
}

/** Resources that are requests, not stored objects (create answers the evaluated object). */
export function isVirtualResource(type: ResourceType): boolean {
  return type.verbs.length === 1 && type.verbs[0] === 'create';
}
