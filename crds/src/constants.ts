// Names shared by the operator and the recorder: API group, kinds, plurals, condition types and reasons, Lease names,
// annotations, field managers.
import { createHash } from 'node:crypto';

export const GROUP = 'vigil.io';
export const VERSION = 'v1alpha1';
export const API_VERSION = `${GROUP}/${VERSION}`;

export const CAMERA_KIND = 'Camera';
export const CAMERA_PLURAL = 'cameras';
export const CAMERA_SINGULAR = 'camera';
export const CAMERA_SHORT_NAME = 'cam';
/** Camera fields field selectors may use (CRD selectableFields, Kubernetes 1.31+): the recording node, and the old side of a handover. */
export const CAMERA_NODE_FIELD = 'status.node';
export const CAMERA_HANDOVER_FROM_FIELD = 'status.handoverFrom';
export const CAMERA_SELECTABLE_FIELDS = [CAMERA_NODE_FIELD, CAMERA_HANDOVER_FROM_FIELD] as const;

export const RECORDER_NODE_KIND = 'RecorderNode';
export const RECORDER_NODE_PLURAL = 'recordernodes';
export const RECORDER_NODE_SINGULAR = 'recordernode';
export const RECORDER_NODE_SHORT_NAME = 'rn';

/** `kubectl get vigil` lists both kinds. */
export const CATEGORY = 'vigil';

/** Camera ids are path components and URL segments in the recorder: the same rule as its configuration. */
export const CAMERA_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export const CAMERA_PHASES = ['Pending', 'Assigned', 'Recording', 'Failed'] as const;
export type CameraPhase = (typeof CAMERA_PHASES)[number];

/** Camera condition types: `Assigned`, `CredentialsReady` and `SourceUnique` are the operator's, `Recording` the recorder's. */
export const CameraCondition = {
  Assigned: 'Assigned',
  Recording: 'Recording',
  /** The credentialsSecretRef resolves (or there is none) and the recorders have the credentials. */
  CredentialsReady: 'CredentialsReady',
  /** No other Camera has the same source. */
  SourceUnique: 'SourceUnique',
} as const;

/** RecorderNode condition types, all written by the operator. */
export const RecorderNodeCondition = {
  Online: 'Online',
  Ready: 'Ready',
  Rolled: 'Rolled',
  /** The node's recorder Pod exists; False with the API's message while its creation is refused (e.g. Pod Security). */
  PodCreated: 'PodCreated',
  /** The certificate the node's API serves is not near its end (False: CertificateExpiring, CertificateExpired). */
  CertificateValid: 'CertificateValid',
} as const;

/** Reasons of the Camera conditions (machine-readable, CamelCase as the API conventions ask). */
export const CameraReason = {
  /** Assigned=True: a node was chosen. */
  NodeAssigned: 'NodeAssigned',
  /** Assigned=True during a planned move: the new node records before the old one stops. */
  Handover: 'Handover',
  /** Assigned=False: no online member satisfies the pins. */
  NoEligibleNode: 'NoEligibleNode',
  /** Assigned=False: more than half of the members are not online; nothing is assigned or moved. */
  NoQuorum: 'NoQuorum',
  /** Assigned=False: `metadata.name` is not a valid camera id. */
  InvalidName: 'InvalidName',
  /** Recording=False from the recorder: the camera cannot be recorded. */
  StreamUnavailable: 'StreamUnavailable',
  /** CredentialsReady=True: no credentialsSecretRef (the source needs none, or carries them). */
  NoCredentialsRef: 'NoCredentialsRef',
  /** CredentialsReady=True: the Secret has both keys; the recorders have them. */
  SecretFound: 'SecretFound',
  /** CredentialsReady=False: the Secret does not exist (or is not of a type credentials may come from). */
  SecretMissing: 'SecretMissing',
  /** CredentialsReady=False: the Secret lacks the user name or the password key. */
  SecretKeyMissing: 'SecretKeyMissing',
  /** CredentialsReady=False: the Secret is one of the release's own (tokens, database, license): never handed to recorders. */
  SecretRefused: 'SecretRefused',
  /** SourceUnique=True. */
  UniqueSource: 'UniqueSource',
  /** SourceUnique=False: another Camera has the same source; both are recorded. */
  DuplicateSource: 'DuplicateSource',
} as const;

export const ConditionStatus = { True: 'True', False: 'False', Unknown: 'Unknown' } as const;
export type ConditionStatusValue = (typeof ConditionStatus)[keyof typeof ConditionStatus];

/** Set on a RecorderNode by `POST /cluster/leave`, removed by `POST /cluster/add-learner`: the node takes nothing. */
export const LEFT_ANNOTATION = 'vigil.io/left';

/** The operator's leader-election Lease, in the release namespace. */
export const OPERATOR_LEASE_NAME = 'vigil-operator';

export const NODE_LEASE_PREFIX = 'vigil-node-';

/**
 * The prefix of each node's camera credentials Secret, and the name of the one Secret that held every Camera's
 * credentials before there was one per node (the operator deletes that one once no recorder of the old kind runs).
 */
export const CAMERA_CREDENTIALS_SECRET = 'vigil-camera-credentials';

/**
 * A node's camera credentials Secret, in the release namespace: the user name and password of the cameras that node
 * records or is about to (keys `<camera>.username`, `<camera>.password`), written by the operator; the one Secret that
 * node's recorder may read through the API. `node` is the RecorderNode's name; hashed when the name would be too long.
 */
export function nodeCredentialsSecretName(node: string): string {
  const plain = `${CAMERA_CREDENTIALS_SECRET}-${node}`;
  if (plain.length <= 253) return plain;
  return `${plain.slice(0, 244).replace(/[-.]+$/, '')}-${createHash('sha256').update(node).digest('hex').slice(0, 8)}`;
}

/** Whether a Secret name is one of the operator's credentials Secrets (a node's, or the old shared one). */
export function isCameraCredentialsSecretName(name: string): boolean {
  return name === CAMERA_CREDENTIALS_SECRET || name.startsWith(`${CAMERA_CREDENTIALS_SECRET}-`);
}

/** The recorder's heartbeat Lease of a node, in the release namespace. */
export function nodeLeaseName(nodeName: string): string {
  return `${NODE_LEASE_PREFIX}${nodeName}`;
}

/** The node a heartbeat Lease belongs to, or undefined when the name is not a heartbeat Lease's. */
export function nodeOfLease(leaseName: string): string | undefined {
  return leaseName.startsWith(NODE_LEASE_PREFIX) && leaseName.length > NODE_LEASE_PREFIX.length ? leaseName.slice(NODE_LEASE_PREFIX.length) : undefined;
}

/** Heartbeat Lease timing (kubernetes.md §1, §4). */
export const NODE_LEASE_DURATION_SECONDS = 15;
export const NODE_LEASE_RENEW_SECONDS = 2;

/** A node whose heartbeat is older than this is offline, unless the operator publishes another value (--node-silence). */
export const DEFAULT_NODE_SILENCE_SECONDS = 15;

/**
 * On the operator's leader Lease: the silence rule the operator judges nodes by (seconds, e.g. "15"), so that every
 * recorder's /cluster/metrics applies the same one.
 */
export const NODE_SILENCE_ANNOTATION = 'vigil.io/node-silence-seconds';

/**
 * What a recorder reports about itself, on its own heartbeat Lease (the one object it may write): the operator copies
 * it into the RecorderNode's status, which only the operator writes.
 */
export const NodeReportAnnotations = {
  url: 'vigil.io/url',
  publicUrl: 'vigil.io/public-url',
  version: 'vigil.io/version',
  cameras: 'vigil.io/cameras',
  /**
   * The certificate the node's API serves (RFC 3339): its end, and when the recorder counts it as expiring (its readiness
   * check's rule, health/tls-check.ts); absent without TLS or while the node waits for its own.
   */
  certificateNotAfter: 'vigil.io/certificate-not-after',
  certificateExpiringFrom: 'vigil.io/certificate-expiring-from',
} as const;

/**
 * On a recorder's heartbeat Lease: a membership change it was asked for (`/cluster/leave`, `remove-node`,
 * `add-learner`, `change-membership`), as JSON (membership-request.ts). The operator checks it and carries it out;
 * the outcome appears in the requesting node's RecorderNode `status.membershipRequest`.
 */
export const MEMBERSHIP_REQUEST_ANNOTATION = 'vigil.io/membership-request';

/** Server-side apply field managers: the operator's, and each recorder's own (at most 128 characters). */
export const OPERATOR_FIELD_MANAGER = 'vigil-operator';
const RECORDER_FIELD_MANAGER_PREFIX = 'vigil-recorder-';

/** Labels the operator puts on the objects it owns. */
export const Labels = {
  name: 'app.kubernetes.io/name',
  component: 'app.kubernetes.io/component',
  managedBy: 'app.kubernetes.io/managed-by',
  node: 'vigil.io/node',
} as const;

/** Annotation on a recorder Pod: the hash of the template it was made from (a change rolls the Pod). */
export const TEMPLATE_HASH_ANNOTATION = 'vigil.io/template-hash';

/** The field manager a node's recorder applies its Camera status fields as (`vigil-recorder-<node>`, hashed when long). */
export function recorderFieldManager(nodeName: string): string {
  const plain = `${RECORDER_FIELD_MANAGER_PREFIX}${nodeName}`;
  if (plain.length <= 128) return plain;
  return `${plain.slice(0, 119)}-${createHash('sha256').update(nodeName).digest('hex').slice(0, 8)}`;
}
