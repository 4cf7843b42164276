// The Kubernetes objects as JSON on the wire (times are strings), only the fields the operator reads or writes.
import type { ObjectMeta } from '@vigil/crds';
import type { V1IngressSpec, V1PodSpec, V1ServiceSpec } from '@kubernetes/client-node';

export type { ObjectMeta };

export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
}

export interface KubeList<T extends KubeObject = KubeObject> {
  apiVersion?: string;
  kind?: string;
  metadata?: { resourceVersion?: string; continue?: string };
  items: T[];
}

/** The Status object the API server answers errors with. */
export interface ApiStatus {
  kind?: 'Status';
  status?: string;
  message?: string;
  reason?: string;
  code?: number;
}

export interface Lease extends KubeObject {
  spec?: {
    holderIdentity?: string | null;
    leaseDurationSeconds?: number | null;
    acquireTime?: string | null;
    renewTime?: string | null;
    leaseTransitions?: number | null;
  };
}

export interface Node extends KubeObject {
  spec?: { unschedulable?: boolean };
  status?: { conditions?: Array<{ type: string; status: string }> };
}

export interface PodCondition {
  type: string;
  status: string;
  lastTransitionTime?: string;
}

export interface Pod extends KubeObject {
  spec?: V1PodSpec;
  status?: { phase?: string; conditions?: PodCondition[]; podIP?: string };
}

export interface Service extends KubeObject {
  spec?: V1ServiceSpec;
}

export interface Ingress extends KubeObject {
  spec?: V1IngressSpec;
}

export interface ConfigMap extends KubeObject {
  data?: Record<string, string>;
  binaryData?: Record<string, string>;
}

export interface Secret extends KubeObject {
  /** Opaque when absent. */
  type?: string;
  /** base64 values. */
  data?: Record<string, string>;
}

/** certificates.k8s.io/v1 CertificateSigningRequest: request and certificate are base64 of PEM, as the JSON form has them. */
export interface CertificateSigningRequest extends KubeObject {
  spec: {
    request: string;
    signerName: string;
    usages?: string[];
    expirationSeconds?: number;
    /** Set by the API server from the authenticated caller, never by the requester. */
    username?: string;
    uid?: string;
    groups?: string[];
  };
  status?: {
    conditions?: Array<{ type: string; status: string; reason?: string; message?: string; lastUpdateTime?: string; lastTransitionTime?: string }>;
    certificate?: string;
  };
}

export interface ServiceAccount extends KubeObject {
  automountServiceAccountToken?: boolean;
  imagePullSecrets?: Array<{ name: string }>;
}

export interface PolicyRule {
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  verbs: string[];
}

export interface Role extends KubeObject {
  rules?: PolicyRule[];
}

export interface RoleRef {
  apiGroup: string;
  kind: 'Role' | 'ClusterRole';
  name: string;
}

export interface Subject {
  kind: string;
  apiGroup?: string;
  name: string;
  namespace?: string;
}

/** A RoleBinding or a ClusterRoleBinding. */
export interface Binding extends KubeObject {
  roleRef: RoleRef;
  subjects?: Subject[];
}

export interface CoreEvent extends KubeObject {
  involvedObject: { apiVersion?: string; kind?: string; name?: string; namespace?: string; uid?: string; resourceVersion?: string };
  reason: string;
  message: string;
  type: 'Normal' | 'Warning';
  source?: { component?: string; host?: string };
  firstTimestamp?: string;
  lastTimestamp?: string;
  eventTime?: string | null;
  count?: number;
  reportingComponent?: string;
  reportingInstance?: string;
  action?: string;
}

export function keyOf(obj: KubeObject): string {
  const { namespace, name } = obj.metadata;
  return namespace ? `${namespace}/${name ?? ''}` : (name ?? '');
}
